import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ClosureTransport")
struct ClosureTransportTests {
    struct API: TargetType {
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "items" }
        var method: HTTPMethod { .post }
        var task: RequestTask { .requestData(Data("body".utf8)) }
        var headers: [String: String]? { nil }
    }

    @Test("the closure sees the request the provider sends and its answer is the response")
    func handler() async throws {
        let seen = LockIsolated<[String]>([])
        let transport = ClosureTransport { request in
            seen.withValue { $0.append("\(request.urlRequest.httpMethod ?? "") \(request.urlRequest.url?.path ?? "")") }
            return Response(statusCode: 201, data: Data("made".utf8), request: request.urlRequest)
        }
        let response = try await Provider<API>(transport: transport).request(API())
        #expect(response.statusCode == 201)
        #expect(String(decoding: response.data, as: UTF8.self) == "made")
        #expect(seen.value == ["POST /items"])
    }

    @Test("successful answers with the status and body given")
    func successful() async throws {
        let response = try await Provider<API>(transport: ClosureTransport.successful(statusCode: 204)).request(API())
        #expect(response.statusCode == 204)
        #expect(response.data.isEmpty)
    }

    @Test("failing fails every request with the error, wrapped as underlying")
    func failing() async {
        let provider = Provider<API>(transport: ClosureTransport.failing(with: URLError(.timedOut)))
        await #expect {
            try await provider.request(API())
        } throws: { error in
            guard case .underlying(let underlying, _) = error as? CourierError else { return false }
            return (underlying as? URLError)?.code == .timedOut
        }
    }
}
