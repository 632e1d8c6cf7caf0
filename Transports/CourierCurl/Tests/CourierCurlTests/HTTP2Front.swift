// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierCurl
import CourierTestServer
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test server's h2_front.py: nginx with TLS 1.3 and HTTP/2 in front of a test server, started for one
/// test and stopped by it. Its certificate is trusted only by transports made with
/// ``transport(_:)``.
struct HTTP2Front: Sendable {
    let port: Int
    /// The pin of the front's public key, in `CURLOPT_PINNEDPUBLICKEY` form.
    let pin: String
    /// The front's self-signed certificate (PEM), for `certificateAuthorities`.
    let certificate: URL
    private let script: ScriptServer

    /// Starts a front for `server`; `http2: false` offers HTTP/1.1 only.
    static func start(for server: TestServer, http2: Bool = true) async throws -> HTTP2Front {
        let script = try await ScriptServer.start(
            script: Self.script, arguments: ["\(server.port)"] + (http2 ? [] : ["--http1-only"]))
        let fields = script.readyLine
        guard fields.count == 4, let port = Int(fields[1]) else {
            script.stop()
            throw CocoaError(.fileReadCorruptFile)
        }
        return HTTP2Front(
            port: port, pin: String(fields[2]), certificate: URL(fileURLWithPath: String(fields[3])), script: script)
    }

    /// Tests/Server/h2_front.py, beside the test server it fronts.
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Server/h2_front.py")

    /// `https://127.0.0.1:<port>/<path>` (or another host name for the same front).
    func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)/\(path)")!
    }

    /// A transport that trusts the front's certificate, with `change` applied.
    func transport(_ change: (inout CurlTransport.Configuration) -> Void = { _ in }) -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.certificateAuthorities = certificate
        change(&configuration)
        return CurlTransport(configuration: configuration)
    }

    /// Ends nginx and removes its files.
    func stop() {
        script.stop()
    }
}

extension Response {
    /// The protocol the front says the client spoke: `HTTP/2.0` or `HTTP/1.1`.
    var frontProtocol: String? {
        response?.value(forHTTPHeaderField: "X-Front-Protocol")
    }
}

#endif
