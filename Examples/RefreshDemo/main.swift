import Courier
import CourierTestServer
import CourierTestServerTargets
import Foundation

// RefreshDemo: token refresh and replay against the local test server.
//
// 1. Sign in with a password grant.
// 2. The server expires the access token; 24 requests fire at once, all get 401.
//    → exactly one refresh, every request replayed once with the new token.
// 3. Proactive refresh: a token about to expire is refreshed before requests leave.
// 4. The server revokes the refresh token: the token endpoint answers 400 invalid_grant,
//    the session ends and the app is told.
//
// `swift run RefreshDemo` prints a summary of each step; `--verbose` adds a line for every
// request and response.

let verbose = CommandLine.arguments.dropFirst().contains("--verbose")
let burstSize = 24
let server = try await TestServer.start(tokenLifetime: 4)
defer { server.stop() }
let timeline = Timeline(verbose: verbose)
// The token endpoint, called through a plain `Provider` (never the refreshable one) and never
// signed: the test server's, shared with Courier's tests (Tests/ServerTargets/TokenEndpoint.swift).
let authProvider = Provider<TokenEndpoint>()
let base = server.baseURL

let session = AuthSession(
    store: InMemoryTokenStore(),
    refresh: { token in
        timeline.refreshStarted()
        let response = try await authProvider.request(
            TokenEndpoint(base: base, grant: .refresh(token.refreshToken ?? "")))
        guard (200..<300).contains(response.statusCode) else {
            // What ended (or failed) the refresh, in the token endpoint's words (RFC 6749 §5.2).
            timeline.print("✗", "refresh answered \(response.statusCode): \(oauthError(in: response))")
            throw CourierError.statusCode(response)
        }
        let fresh = try OAuthToken(response: response)
        timeline.print(
            "✓",
            "refresh answered \(response.statusCode): now using \(timeline.label(forAccessToken: fresh.accessToken))")
        return fresh
    })
let provider = RefreshableProvider<DemoAPI>(auth: session, plugins: [timeline])

let eventsTask = Task {
    for await event in session.events {
        timeline.print("★", "session event: .\(event)")
        if event == .sessionExpired { return }
    }
}

func burst(_ label: String, count: Int) async -> Int {
    await withTaskGroup(of: Bool.self) { group in
        for index in 1...count {
            group.addTask {
                do {
                    _ = try await provider.request(DemoAPI(baseURL: base, path: "api/\(label)/\(index)"))
                        .filterSuccessfulStatusCodes()
                    return true
                } catch {
                    return false
                }
            }
        }
        return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
    }
}

/// The OAuth `error` and `error_description` of a token endpoint's answer: codes and prose,
/// never a token.
func oauthError(in response: Response) -> String {
    let code = (try? response.mapString(atKeyPath: "error")) ?? "no OAuth error code"
    let description = (try? response.mapString(atKeyPath: "error_description")).map { " (\($0))" } ?? ""
    return code + description
}

func summary(_ title: String, failures: Int, requests: Int) async throws {
    let counts = timeline.counts
    let serverCounters = try await server.counters()
    print(
        """

          \(title)
            requests made by the app:      \(requests)
            requests sent (with replays):  \(counts.sent)
            answered 401:                  \(counts.rejected)
            refresh calls:                 \(counts.refreshCalls) (the server counted \(serverCounters.refreshGrants))
            replays:                       \(counts.replays)
            failures:                      \(failures)

        """)
    timeline.resetCounts()
    try await server.resetCounters()
}

print("Courier RefreshDemo — test server on \(server.baseURL)\n")
print("1. Sign in (password grant)")
let signInResponse = try await authProvider.request(
    TokenEndpoint(base: base, grant: .password(username: "ada", password: "lovelace")))
let signedIn = try OAuthToken(response: signInResponse)
try await session.signIn(signedIn)
timeline.print("✓", "signed in with \(timeline.label(forAccessToken: signedIn.accessToken)), valid 4 s")
try await server.resetCounters()

print("\n2. The server expires the token early; \(burstSize) requests fire at once")
try await server.expireAccessTokens()
let burstFailures = await burst("orders", count: burstSize)
try await summary("Burst across an expiry:", failures: burstFailures, requests: burstSize)
if !verbose {
    print("    (swift run RefreshDemo --verbose shows every request and response)\n")
}

print("3. Proactive refresh: wait until the token has less than half its life left")
try await Task.sleep(nanoseconds: 2_300_000_000)
let proactiveFailures = await burst("profile", count: 6)
try await summary("Proactive refresh (no request should see a 401):", failures: proactiveFailures, requests: 6)

print("4. The server revokes the refresh token; the access token expires")
try await server.revokeRefreshTokens()
try await server.expireAccessTokens()
do {
    _ = try await provider.request(DemoAPI(baseURL: base, path: "api/settings"))
    timeline.print("?", "unexpected success")
} catch {
    timeline.print("✗", "request failed: \(error)")
}
await eventsTask.value
do {
    _ = try await provider.request(DemoAPI(baseURL: base, path: "api/settings"))
} catch {
    timeline.print("✗", "next request fails fast, nothing sent: \(error)")
}
print("\n→ The app would now show its login screen.")
