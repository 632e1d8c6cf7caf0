import Courier
import CourierTesting
import Foundation
import Testing

/// "Signed out" and "cannot tell yet" are different answers at start-up: a store that is
/// merely unreachable (a database down while a worker starts) must not send the app to its
/// login screen, nor be mistaken for a session.
@Suite("AuthSession's sign-in state while the store cannot be read", .timeLimit(.minutes(20)))
struct AuthSessionSignInStateTests {
    typealias Database = AsyncCoordinatorTests.DatabaseCoordinator

    @Test("a store down at start-up: not needsSignIn but unknown with the store's error; the token once it is back")
    func unreachableThenBack() async throws {
        let coordinator = Database(AsyncCoordinatorTests.valid("stored"))
        coordinator.isDown.setValue(true)
        let session = AuthSession(
            store: AsyncCoordinatorTests.DatabaseStore(shared: coordinator), refresh: { $0 },
            refreshTimeout: testRefreshTimeout)

        #expect(await !session.needsSignIn, "an unreachable store says nothing about the user")
        guard case .unknown(let error) = await session.signInState else {
            Issue.record("expected .unknown, got \(await session.signInState)")
            return
        }
        #expect(error is Database.Down)
        #expect(await session.tokenLoadError is Database.Down)
        #expect("\(await session.signInState)".contains("refused the connection"))
        await #expect {
            try await session.validToken()
        } throws: { error in
            guard case .storeUnavailable(let underlying) = error as? AuthenticationError else { return false }
            return underlying is Database.Down
        }

        coordinator.isDown.setValue(false)
        #expect(await session.signInState == .signedIn)
        #expect(await !session.needsSignIn)
        #expect(try await session.validToken().accessToken == "at-stored")
    }

    @Test("a store down at start-up that, once back, holds no token: then needsSignIn")
    func unreachableThenEmpty() async throws {
        let coordinator = Database(nil)
        coordinator.isDown.setValue(true)
        let session = AuthSession(
            store: AsyncCoordinatorTests.DatabaseStore(shared: coordinator), refresh: { $0 },
            refreshTimeout: testRefreshTimeout)
        #expect(await session.signInState == .unknown(Database.Down()))
        #expect(await !session.needsSignIn)

        coordinator.isDown.setValue(false)
        // The store answers again, and was written since (a sign-out elsewhere, say).
        _ = try await coordinator.write(nil, change: .signedOut, ifGeneration: nil)
        #expect(await session.needsSignIn)
        #expect(await session.signInState == .needsSignIn)
    }

    @Test("a signed-in session whose store goes down stays signedIn; with an acquire closure, never unknown")
    func tokenInMemoryOrAcquire() async throws {
        let coordinator = Database(AsyncCoordinatorTests.valid("stored"))
        let session = AuthSession(
            store: AsyncCoordinatorTests.DatabaseStore(shared: coordinator), refresh: { $0 },
            refreshTimeout: testRefreshTimeout)
        #expect(await session.signInState == .signedIn)
        coordinator.isDown.setValue(true)
        #expect(await session.signInState == .signedIn)
        #expect(await !session.needsSignIn)

        let down = Database(nil)
        down.isDown.setValue(true)
        let anonymous = AuthSession(
            store: AsyncCoordinatorTests.DatabaseStore(shared: down), refresh: { $0 },
            acquire: { AsyncCoordinatorTests.valid("guest") }, refreshTimeout: testRefreshTimeout)
        #expect(await anonymous.signInState == .signedIn)
    }

    @Test("a sign-in while the store was unknown makes it signedIn; a sign-out makes it needsSignIn")
    func signInReplacesUnknown() async throws {
        let coordinator = Database(nil)
        coordinator.isDown.setValue(true)
        let session = AuthSession(
            store: AsyncCoordinatorTests.DatabaseStore(shared: coordinator), refresh: { $0 },
            refreshTimeout: testRefreshTimeout)
        #expect(await session.signInState == .unknown(Database.Down()))
        coordinator.isDown.setValue(false)
        try await session.signIn(AsyncCoordinatorTests.valid("new"))
        #expect(await session.signInState == .signedIn)
        try await session.signOut()
        #expect(await session.signInState == .needsSignIn)
    }
}
