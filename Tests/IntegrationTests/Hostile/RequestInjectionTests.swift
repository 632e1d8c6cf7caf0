import Courier
import CourierTestServer
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Header names, header values and methods that would split the HTTP message, against the
/// real server: nothing reaches it that the caller did not ask for (its request counter and
/// `/echo` prove it).
@Suite("Request injection against the test server", .timeLimit(.minutes(20)))
struct RequestInjectionTests {
    let server: TestServer
    let provider = Provider<ServerAPI>()

    init() async throws {
        server = try await TestServer.start()
    }

    /// The request's result; a thrown error is a result too (each request ends exactly once).
    private func send(_ target: ServerAPI) async -> Result<Response, CourierError> {
        do {
            return .success(try await provider.request(target))
        } catch {
            return .failure(error)
        }
    }

    private func isRefusal(_ result: Result<Response, CourierError>) -> Bool {
        if case .failure(.underlying(_ as RequestValidationError, nil)) = result { return true }
        return false
    }

    @Test("a CR/LF header name never reaches the server as a separate header")
    func headerName() async throws {
        defer { server.stop() }
        let before = try await server.counters().requestsTotal
        let result = await send(ServerAPI(server, "echo", headers: ["X-Meta\r\nX-Injected": "1"]))
        #expect(isRefusal(result))
        #expect(try await server.counters().requestsTotal == before)
        // The server is fine and a clean request goes through, with no trace of the other.
        let echo = try await provider.request(ServerAPI(server, "echo", headers: ["X-Meta": "1"])).echo()
        #expect(echo.header("X-Meta") == "1")
        #expect(echo.header("X-Injected") == nil)
        #expect(try await server.counters().requestsTotal == before + 1)
    }

    @Test("a CR/LF header value is refused, not dropped: the request is not sent without it")
    func headerValue() async throws {
        defer { server.stop() }
        let before = try await server.counters().requestsTotal
        let result = await send(ServerAPI(server, "echo", headers: ["X-Note": "a\r\nX-Injected: 1"]))
        #expect(isRefusal(result))
        #expect(try await server.counters().requestsTotal == before)
    }

    @Test("a method carrying a second request smuggles nothing")
    func smuggledMethod() async throws {
        defer { server.stop() }
        let smuggled = HTTPMethod(rawValue: "GET /echo/first HTTP/1.1\r\nHost: x\r\n\r\nGET /echo/smuggled")
        let before = try await server.counters().requestsTotal
        let result = await send(ServerAPI(server, "echo", method: smuggled))
        #expect(isRefusal(result))
        #expect(try await server.counters().requestsTotal == before)
    }

    @Test("seeded fuzzing: 1,500 header names and methods; the server sees exactly the valid ones, as asked")
    func fuzz() async throws {
        defer { server.stop() }
        var random = SeededRandomNumberGenerator(seed: 0x5EED)
        let before = try await server.counters().requestsTotal
        var sent = 0
        var refused = 0
        for round in 0..<1_500 {
            let text = Fuzz.text(&random)
            let fuzzingName = round % 2 == 0
            let target =
                fuzzingName
                ? ServerAPI(server, "echo", headers: [text: "v\(round)"])
                : ServerAPI(server, "echo", method: HTTPMethod(rawValue: text))
            let result = await send(target)
            if Fuzz.isToken(text) {
                // HEAD answers without a body; CONNECT and friends are not for /echo.
                guard fuzzingName || !["HEAD", "CONNECT"].contains(text.uppercased()) else {
                    sent += 1
                    continue
                }
                let echo = try #require(try? result.get().echo(), "\(text.debugDescription): \(result)")
                if fuzzingName {
                    #expect(echo.header(text) == "v\(round)", "\(text.debugDescription)")
                } else {
                    #expect(echo.method == text.uppercased() || echo.method == text, "\(text.debugDescription)")
                }
                sent += 1
            } else {
                #expect(isRefusal(result), "\(text.debugDescription) was not refused: \(result)")
                refused += 1
            }
        }
        #expect(
            try await server.counters().requestsTotal == before + sent, "only what was asked for reached the server")
        #expect(sent > 300)
        #expect(refused > 300)
    }
}

/// Fuzzed names and methods, and the RFC 9110 token oracle, written apart from Courier's.
enum Fuzz {
    static let tokenCharacters = Array("abcXYZ09-_.!#$%&'*+^`|~".unicodeScalars)
    static let otherCharacters = Array(" \t\r\n\u{0}\u{1}\u{7F}\u{85}()<>@,;:\\\"/[]?={}é€😀".unicodeScalars)

    static func isToken(_ text: String) -> Bool {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
        return !text.isEmpty && text.unicodeScalars.allSatisfy { tchar.contains($0) }
    }

    static func text(_ random: inout SeededRandomNumberGenerator) -> String {
        let length = 1 + Int(random.next() % 9)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            if random.next() % 10 == 0 {
                scalars.append(otherCharacters[Int(random.next() % UInt64(otherCharacters.count))])
            } else {
                scalars.append(tokenCharacters[Int(random.next() % UInt64(tokenCharacters.count))])
            }
        }
        return String(scalars)
    }
}
