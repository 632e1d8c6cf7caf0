// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierCurl
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP/2 `GOAWAY` whose last-stream-id is below streams still in flight: the server declared
/// those streams unprocessed, so an idempotent request on one is sent again on a new
/// connection; a POST is never sent twice.
///
/// The server (Tests/Server/h2_goaway.py, Python's standard library) waits for all six requests
/// on its first connection, answers the lowest stream only, sends `GOAWAY` naming it as the last
/// processed, and closes; later connections are served. It counts what it processed.
@Suite("CurlTransport and HTTP/2 GOAWAY", .timeLimit(.minutes(20)))
struct CurlGoawayTests {
    /// What the server processed, by method.
    struct Counts: Decodable {
        let GET: Int
        let POST: Int
        let connections: Int
    }

    @Test(
        "GOAWAY below streams in flight: every unprocessed GET is sent again on a new connection and succeeds; the POST reaches the server at most once"
    )
    func unprocessedStreamsAreRetried() async throws {
        let server = try await HelperServer.start("h2_goaway.py", arguments: ["6"])
        defer { server.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.certificateAuthorities = server.value("cert").map { URL(fileURLWithPath: $0) }
        let transport = CurlTransport(configuration: configuration)
        let base = "https://127.0.0.1:\(try server.port("port"))"

        let outcomes = await withTaskGroup(of: (String, Result<Int, any Error>).self) { group in
            for index in 0..<5 {
                group.addTask {
                    let request = URLRequest(url: URL(string: "\(base)/get/\(index)")!)
                    return ("GET", await Self.status(of: request, on: transport))
                }
            }
            group.addTask {
                var request = URLRequest(url: URL(string: "\(base)/post")!)
                request.httpMethod = "POST"
                request.httpBody = Data(#"{"amount":1}"#.utf8)
                return ("POST", await Self.status(of: request, on: transport))
            }
            var outcomes: [(String, Result<Int, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }

        for (method, result) in outcomes where method == "GET" {
            #expect((try? result.get()) == 200, "a GET failed: \(result)")
        }
        let counts = try await Self.counts(server)
        #expect(counts.GET == 5, "each GET processed exactly once")
        #expect(counts.POST <= 1, "the POST was processed \(counts.POST) times")
        #expect(counts.connections >= 2)
        if let post = outcomes.first(where: { $0.0 == "POST" })?.1, case .success(let status) = post {
            #expect(status == 200)
            #expect(counts.POST == 1)
        }
    }

    /// The status `request` got on `transport`, or its error.
    static func status(of request: URLRequest, on transport: CurlTransport) async -> Result<Int, any Error> {
        do {
            return .success(try await transport.send(TransportRequest(urlRequest: request)).statusCode)
        } catch {
            return .failure(error)
        }
    }

    /// What the server processed, read from its plain-HTTP count port.
    static func counts(_ server: HelperServer) async throws -> Counts {
        let url = URL(string: "http://127.0.0.1:\(try server.port("count"))/")!
        let response = try await CurlTransport().send(TransportRequest(urlRequest: URLRequest(url: url)))
        return try JSONDecoder().decode(Counts.self, from: response.data)
    }
}

#endif
