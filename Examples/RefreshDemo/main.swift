import Courier
import CourierTestServer
import Foundation

/// An echo call against the local test server.
struct EchoTarget: TargetType {
    let baseURL: URL
    let message: String
    var path: String { "echo" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestParameters(parameters: ["message": message], encoding: URLEncoding.default) }
    var headers: [String: String]? { nil }
    var sampleData: Data { Data(#"{"args":{"message":["from the stub"]}}"#.utf8) }
}

let server = try await TestServer.start()
defer { server.stop() }
print("Test server on \(server.baseURL)")

let stubbed = Provider<EchoTarget>(stubClosure: Provider.immediatelyStub)
let real = Provider<EchoTarget>()
let target = EchoTarget(baseURL: server.baseURL, message: "hello over loopback")
print("stubbed:", try await stubbed.request(target).mapString(atKeyPath: "args.message.0"))
print("real:   ", try await real.request(target).mapString(atKeyPath: "args.message.0"))
