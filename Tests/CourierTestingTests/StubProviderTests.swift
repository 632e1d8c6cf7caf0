import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Stub providers")
struct StubProviderTests {
    @Test("stubbed() answers with each target's sample data and a 200")
    func sampleData() async throws {
        let response = try await Provider<KitAPI>.stubbed().request(.me)

        #expect(response.statusCode == 200)
        #expect(try response.mapString(atKeyPath: "login") == "ada")
    }

    @Test("stubbed(sampleResponse:) answers per target")
    func perTarget() async throws {
        let provider = Provider<KitAPI>.stubbed { target in
            switch target {
            case .repos: .networkResponse(404, Data(#"{"message":"Not Found"}"#.utf8))
            case .login: .networkError(URLError(.notConnectedToInternet))
            default: .networkResponse(200, target.sampleData)
            }
        }

        #expect(try await provider.request(.me).statusCode == 200)
        #expect(try await provider.request(.repos(page: 1)).statusCode == 404)
        await #expect(throws: CourierError.self) { try await provider.request(.login) }
    }

    @Test("stubbed(sampleResponse:) works for a MultiTarget, whose wrapped target is not Sendable")
    func multiTarget() async throws {
        let provider = Provider<MultiTarget>.stubbed { target in
            target.path == "login" ? .networkResponse(401, Data()) : .networkResponse(200, target.sampleData)
        }

        #expect(try await provider.request(MultiTarget(KitAPI.me)).mapString(atKeyPath: "login") == "ada")
        #expect(try await provider.request(MultiTarget(KitAPI.login)).statusCode == 401)
    }

    @Test("stubbed(sequence:) serves one response per request, then fails naming the target")
    func sequence() async throws {
        let provider = Provider<KitAPI>.stubbed(sequence: [
            .networkResponse(503, Data()), .networkResponse(200, Data("ok".utf8)),
        ])

        #expect(try await provider.request(.me).statusCode == 503)
        #expect(try await provider.request(.me).mapString() == "ok")
        await #expect {
            try await provider.request(.repos(page: 1))
        } throws: { error in
            guard case .underlying(let underlying as SampleResponseSequence.Exhausted, nil) = error as? CourierError
            else { return false }
            return underlying.description
                == "SampleResponseSequence has no response left for GET me/repos: all 2 were used"
        }
    }

    @Test("a 401-then-200 sequence drives a RefreshableProvider through one refresh and a replay")
    func refreshSequence() async throws {
        let clock = TestClock()
        let issuer = TokenIssuer(clock: clock.now)
        let session = AuthSession(
            store: InMemoryTokenStore(
                OAuthToken(
                    accessToken: "access-1", refreshToken: "refresh-1", expiresAt: clock.date + 3600,
                    issuedAt: clock.date)),
            refresh: { token in await issuer.refresh(token) }, now: clock.now, refreshTimeout: testRefreshTimeout)
        let responses = SampleResponseSequence([
            .networkResponse(401, Data(#"{"error":"invalid_token"}"#.utf8)),
            .networkResponse(200, Data(#"{"login":"ada"}"#.utf8)),
        ])
        let provider = RefreshableProvider<KitAPI>(
            auth: session, endpointClosure: Provider.endpointClosure(sequence: responses),
            stubClosure: Provider.immediatelyStub)

        let response = try await provider.request(.me)

        #expect(response.statusCode == 200)
        #expect(response.request?.value(forHTTPHeaderField: "Authorization") == "Bearer access-2")
        #expect(responses.servedCount == 2)
        #expect(responses.remainingCount == 0)
        #expect(await issuer.refreshes == 1)
    }
}
