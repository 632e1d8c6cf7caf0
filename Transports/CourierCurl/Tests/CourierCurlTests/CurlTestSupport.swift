// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One test server for the suites that only read from it.
enum SharedCurlServer {
    private static let started = Task { try await TestServer.start() }

    static func get() async throws -> TestServer {
        try await started.value
    }
}

/// What the test server's `/echo` saw.
struct Echo: Decodable {
    let method: String
    let path: String
    let headers: [String: String]
    let body: String
    let bodyLength: Int

    enum CodingKeys: String, CodingKey {
        case method, path, headers, body
        case bodyLength = "body_length"
    }

    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

extension HTTPTransport {
    /// Sends `method` to `url` with `headers` and `body` straight through the transport.
    func send(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
        progress: (@Sendable (Int64, Int64?) -> Void)? = nil
    ) async throws -> Response {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(
            TransportRequest(urlRequest: request, body: body.map { .data($0) } ?? .inline, progress: progress))
    }
}

extension Response {
    func echo() throws -> Echo { try JSONDecoder().decode(Echo.self, from: data) }
}

/// The `URLError` code of `error`, if it is one.
func urlErrorCode(_ error: any Error) -> URLError.Code? {
    (error as? URLError)?.code
}

#endif
