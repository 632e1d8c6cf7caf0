// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierCurl
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// TLS: verified against the trust store, and optionally pinned to a public key.
///
/// The server (tls_server.py, Python's ssl module and the openssl command) has a fresh
/// self-signed certificate for 127.0.0.1 that no trust store knows.
@Suite("CurlTransport verifies TLS and pins public keys", .serialized, .timeLimit(.minutes(20)))
struct CurlTLSTests {
    let server: TLSServer

    init() async throws {
        server = try await TLSServer.start()
    }

    static func transport(_ change: (inout CurlTransport.Configuration) -> Void) -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        change(&configuration)
        return CurlTransport(configuration: configuration)
    }

    @Test("a certificate that the trust store does not know is refused: serverCertificateUntrusted")
    func untrusted() async throws {
        defer { server.stop() }
        await #expect {
            try await CurlTransport().send(server.url("hello"))
        } throws: { urlErrorCode($0) == .serverCertificateUntrusted }
        #expect(try await server.count() == 0)
    }

    @Test("a trusted certificate whose key matches the pin is accepted")
    func pinMatches() async throws {
        defer { server.stop() }
        let transport = Self.transport {
            $0.certificateAuthorities = server.certificate
            $0.pinnedPublicKey = server.pin
        }
        let response = try await transport.send(server.url("hello"))
        #expect(response.statusCode == 200)
        #expect(response.data == Data("ok".utf8))
    }

    @Test("a trusted certificate whose key does not match the pin is refused before anything is sent")
    func pinMismatch() async throws {
        defer { server.stop() }
        let transport = Self.transport {
            $0.certificateAuthorities = server.certificate
            $0.pinnedPublicKey = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        }
        await #expect {
            try await transport.send(server.url("hello"))
        } throws: { urlErrorCode($0) == .serverCertificateUntrusted }
        #expect(try await server.count() == 0)
    }
}

/// tls_server.py, started for one test and stopped by it.
struct TLSServer: Sendable {
    let port: Int
    let pin: String
    let certificate: URL
    private let script: ScriptServer

    static func start() async throws -> TLSServer {
        let script = try await ScriptServer.start("tls_server.py")
        let fields = script.readyLine
        guard fields.count == 4, let port = Int(fields[1]) else {
            script.stop()
            throw CocoaError(.fileReadCorruptFile)
        }
        return TLSServer(
            port: port, pin: String(fields[2]), certificate: URL(fileURLWithPath: String(fields[3])), script: script)
    }

    func url(_ path: String) -> URL {
        URL(string: "https://127.0.0.1:\(port)/\(path)")!
    }

    /// How many requests reached the server, asked with a transport that trusts it.
    func count() async throws -> Int {
        var configuration = CurlTransport.Configuration()
        configuration.certificateAuthorities = certificate
        let response = try await CurlTransport(configuration: configuration).send(url("count"))
        return Int(String(decoding: response.data, as: UTF8.self)) ?? -1
    }

    /// Ends the server.
    func stop() {
        script.stop()
    }
}

#endif
