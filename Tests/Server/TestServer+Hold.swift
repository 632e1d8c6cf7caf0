import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests the server holds until the test lets them go: a transfer that is known to be at
/// the server while the test cancels it, with no sleep and no polling.
///
/// ```swift
/// let key = UUID().uuidString
/// let task = Task { try await provider.request(ServerAPI(server, TestServer.heldPath(key))) }
/// try await server.waitForHeldRequest(key)  // it is at the server now
/// task.cancel()
/// // … the cancelled result came back while the server still holds the answer …
/// try await server.releaseHeldRequest(key)
/// ```
extension TestServer {
    /// The path (without a leading slash) of a request that the server answers only once
    /// ``releaseHeldRequest(_:)`` is called for `key` (or after ten minutes, longer than any
    /// suite's time limit).
    public static func heldPath(_ key: String) -> String {
        "hold/\(key)"
    }

    /// Waits until a request for ``heldPath(_:)`` with `key` has arrived at the server. The
    /// server answers as soon as it has: there is no polling. The server gives up after ten
    /// minutes, so in practice the suite's time limit bounds the wait.
    public func waitForHeldRequest(_ key: String) async throws {
        _ = try await holdControl("arrived/\(key)?timeout_ms=600000", method: "GET")
    }

    /// Lets the held request for `key` be answered (200), whether or not it has arrived yet.
    public func releaseHeldRequest(_ key: String) async throws {
        _ = try await holdControl("release/\(key)", method: "POST")
    }

    /// A session whose time-outs outlast the server's ten minutes (the admin session gives
    /// up after 10 s): for waits whose end is an event the server sends.
    static let patientSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 900
        configuration.timeoutIntervalForResource = 900
        return URLSession(configuration: configuration)
    }()

    private func holdControl(_ name: String, method: String) async throws -> Data {
        let path = "/_admin/hold/\(name)"
        guard !hasStopped else {
            throw TestServerError.adminRequestFailed(path: path, status: nil, detail: "the server was stopped")
        }
        var request = URLRequest(url: originURL(path))
        request.httpMethod = method
        request.timeoutInterval = 900
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.patientSession.dataStartedOffPool(for: request)
        } catch {
            throw TestServerError.adminRequestFailed(path: path, status: nil, detail: String(describing: error))
        }
        let status = (response as? HTTPURLResponse)?.statusCode
        guard status == 200 else {
            throw TestServerError.adminRequestFailed(
                path: path, status: status, detail: String(decoding: data.prefix(2_000), as: UTF8.self))
        }
        return data
    }
}
