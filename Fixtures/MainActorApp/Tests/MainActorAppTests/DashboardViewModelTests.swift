import Courier
import CourierTesting
import Foundation
import MainActorApp
import Observation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Concurrent requests and a session watcher in a main-actor view model, as an app writes them.
@Suite("A main-actor view model: requests at once, a watcher that ends with it")
struct DashboardViewModelTests {
    let transport = GatedTransport(
        answering: ClosureTransport { request in
            let body =
                request.urlRequest.url?.path == "/v1/me"
                ? #"{"name":"Ada","email":"ada@example.com"}"# : #"[{"title":"Hello"}]"#
            return Response(statusCode: 200, data: Data(body.utf8), request: request.urlRequest)
        })

    /// A signed-in session whose refresh token the server rejects.
    func signedIn() async throws -> AuthSession {
        let session = AuthSession(refresh: { _ in throw AuthenticationError.sessionExpired })
        try await session.signIn(OAuthToken(accessToken: "a", refreshToken: "r"))
        return session
    }

    func makeModel(_ session: AuthSession) -> DashboardViewModel {
        DashboardViewModel(provider: RefreshableProvider<API>(auth: session, transport: transport), session: session)
    }

    @Test("async let: both requests are in flight before either is answered")
    func asyncLet() async throws {
        let model = try await makeModel(signedIn())
        let loading = Task { try await model.load() }
        try await transport.waitForWaitingRequests(2)
        transport.open()
        try await loading.value
        #expect(model.profile?.name == "Ada")
        #expect(model.posts.map(\.title) == ["Hello"])
    }

    @Test("a task group: both requests are in flight before either is answered")
    func taskGroup() async throws {
        let model = try await makeModel(signedIn())
        let loading = Task { try await model.loadInAGroup() }
        try await transport.waitForWaitingRequests(2)
        transport.open()
        try await loading.value
        #expect(model.profile?.name == "Ada")
        #expect(model.posts.count == 1)
    }

    @Test("the watcher shows the login when the session ends; the model's isolated deinit runs")
    func watcher() async throws {
        let session = try await signedIn()
        var model: DashboardViewModel? = makeModel(session)
        weak let watched = model
        _ = try? await session.refresh(rejecting: OAuthToken(accessToken: "a", refreshToken: "r"))
        for await shows in Observations({ watched?.showsLogin ?? true }) where shows { break }
        #expect(model?.showsLogin == true)
        model = nil
        #expect(watched == nil)
    }
}
