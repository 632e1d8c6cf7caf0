import Courier
import CourierTestServer
import CourierTestServerTargets
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A token endpoint that answers 200 with a token no server would accept in a header.
@Suite("A token answer that can never be sent", .timeLimit(.minutes(20)))
struct OversizedTokenTests {
    @Test(
        "a 1 MiB access_token is refused with refreshFailed; the good refresh token stays on disk and the next refresh works"
    )
    func hugeAccessToken() async throws {
        let fixture = try await AuthFixture.make()
        defer { fixture.cleanUp() }
        let storedBefore = try #require(try fixture.storedToken())
        try await fixture.server.configure(.init(tokenFault: .hugeAccessToken, tokenFaultCount: 1))
        try await fixture.server.expireAccessTokens()
        try await fixture.server.resetCounters()

        await #expect {
            try await fixture.provider.request(fixture.api("api/first"))
        } throws: { error in
            guard case .authentication(.refreshFailed(let underlying)) = error as? CourierError,
                case .objectMapping(let problem as TokenValidationError, let response) = underlying as? CourierError
            else { return false }
            let description = "\(error)"
            return problem.field == .accessToken && response.statusCode == 200
                && description.contains("the access_token is 1048584 bytes long, more than the 16384 bytes")
                && !description.contains("xxxxxxxx") && !description.contains("rt-never-issued")
        }
        let storedAfter = try #require(try fixture.storedToken())
        #expect(storedAfter == storedBefore, "the rotated refresh token of the refused answer was not stored")
        #expect(await fixture.session.isSessionExpired == false)

        let protected = try await fixture.provider.request(fixture.api("api/second"), as: Protected.self)
        #expect(protected.ok)
        let counters = try await fixture.server.counters()
        #expect(counters.refreshGrants == 2, "the refused answer, then one refresh with the kept token")
        #expect(counters.refreshSuccesses == 1)
        #expect(try fixture.storedToken()?.refreshToken != storedBefore.refreshToken, "rotated by the good answer")
    }
}
