import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app run end to end against scripted servers: a rejected token is refreshed once and
/// the request replayed; the completion form updates the view model on the main actor; an
/// `Encodable` body goes out as JSON; a target whose `authorizationType` is `nil` is never
/// signed. Returns what went wrong (empty when all is well).
public func runScenario() async -> [String] {
    var failures: [String] = []
    func check(_ condition: Bool, _ message: String) {
        if !condition { failures.append(message) }
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("MainActorApp-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    let api = ScriptedTransport()
    let auth = ScriptedTransport()
    api.enqueue(
        .status(401), .json(#"{"name":"Ada","email":"ada@example.com"}"#),
        .json(#"{"name":"Ada","email":"ada@example.com"}"#), for: .get("/v1/me"))
    api.always(.status(201), for: .post("/v1/posts"))
    api.always(.json("[]"), for: .get("/v1/feed"))
    auth.enqueue(
        .json(#"{"access_token":"new-token","token_type":"Bearer","expires_in":3600,"refresh_token":"r1"}"#),
        for: .post("/oauth/token"))

    let services = AppServices(
        tokenFile: directory.appendingPathComponent("token.json"), apiTransport: api, authTransport: auth)
    do {
        try await services.session.signIn(OAuthToken(accessToken: "old-token", refreshToken: "r0", tokenType: "Bearer"))
    } catch {
        return ["signing in failed: \(error)"]
    }
    let model = ProfileViewModel(provider: services.api)

    // async/await: 401, one refresh, the replay.
    await model.load()
    check(
        model.profile == Profile(name: "Ada", email: "ada@example.com"),
        "the profile was not loaded: \(String(describing: model.errorMessage))")
    check(auth.requestCount == 1, "expected one refresh, got \(auth.requestCount)")
    let meRequests = api.requests(matching: .get("/v1/me"))
    check(
        meRequests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer old-token", "Bearer new-token"],
        "the replay did not carry the new token")
    check(meRequests.allSatisfy { $0.value(forHTTPHeaderField: "X-Request-ID") == "req-me" }, "the plugin did not run")

    // The completion form, delivered on the main actor.
    model.profile = nil
    await withCheckedContinuation { continuation in
        model.loadWithCompletion { continuation.resume() }
    }
    check(model.profile?.name == "Ada" && !model.isLoading, "the completion form did not update the view model")

    // An Encodable body.
    await model.post(title: "Hello")
    let body = api.requests(matching: .post("/v1/posts")).first?.httpBody ?? Data()
    let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: String]
    check(model.posted && json?["title"] == "Hello", "the JSON body was not sent")

    // A target whose authorizationType is nil is never signed.
    do {
        _ = try await services.api.request(.publicFeed)
    } catch {
        failures.append("the public feed failed: \(error)")
    }
    let feed = api.requests(matching: .get("/v1/feed"))
    check(
        feed.count == 1 && feed[0].value(forHTTPHeaderField: "Authorization") == nil,
        "a target with no authorization was signed")

    // The token endpoint is never signed either.
    check(
        auth.requests.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == nil },
        "the token request was signed")

    // Stubs answer from the sample data.
    do {
        let profile = try await AppServices.stubbed().request(.me, as: Profile.self)
        check(profile.name == "Ada", "the stub did not answer from the sample data")
    } catch {
        failures.append("the stubbed request failed: \(error)")
    }
    return failures
}
