import Courier
import CourierCurl
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CurlConsumer <base URL>`: sends `GET <base URL>/echo` through `CurlTransport` and checks
/// the answer (status 200, and the default `User-Agent` reached the server); exits 0 when it
/// did, 1 when it did not.
enum Echo: TargetType {
    case headers(URL)

    var baseURL: URL {
        switch self {
        case .headers(let base): base
        }
    }
    var path: String { "echo" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept": "application/json"] }
}

/// What the test server's `/echo` saw.
struct Seen: Decodable {
    let method: String
    let headers: [String: String]
}

guard CommandLine.arguments.count == 2, let base = URL(string: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: CurlConsumer <base URL>\n".utf8))
    exit(2)
}

let provider = Provider<Echo>(transport: CurlTransport())
do {
    let seen = try await provider.request(.headers(base), as: Seen.self)
    let userAgent = seen.headers["user-agent"] ?? ""
    print("CurlConsumer: \(seen.method) /echo answered through CurlTransport; User-Agent: \(userAgent)")
    guard seen.method == "GET", userAgent.contains("CurlTransport") else {
        FileHandle.standardError.write(Data("error: the server saw an unexpected request\n".utf8))
        exit(1)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
