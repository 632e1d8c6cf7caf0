import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default `User-Agent` reaches the server and names Courier's version; a target's own wins.
@Suite("The default User-Agent on the wire", .timeLimit(.minutes(20)))
struct DefaultUserAgentTests {
    let server: TestServer
    let provider = Provider<ServerAPI>()

    init() async throws {
        server = try await SharedServer.get()
    }

    @Test("URLSessionTransport() sends its defaultUserAgent, which names CourierRelease.product")
    func defaultAgent() async throws {
        let echo = try await provider.request(ServerAPI(server, "echo", method: .get, task: .requestPlain)).echo()
        #expect(echo.header("User-Agent") == URLSessionTransport.defaultUserAgent)
        #expect(echo.header("User-Agent")?.contains(CourierRelease.product) == true)
    }

    @Test("a target's own User-Agent wins")
    func ownAgent() async throws {
        let target = ServerAPI(server, "echo", method: .get, task: .requestPlain, headers: ["User-Agent": "Mine/1.0"])
        #expect(try await provider.request(target).echo().header("User-Agent") == "Mine/1.0")
    }
}
