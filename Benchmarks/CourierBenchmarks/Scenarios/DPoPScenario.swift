import Courier
import CourierTesting
import Foundation

#if OpenSSLSigning
    import CourierOpenSSL
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What DPoP adds to a request (issue 26): the same `RefreshableProvider` call with an
/// in-memory transport, signed with a bearer token and with a DPoP-bound one, and the proof's
/// parts apart — the key's ES256 signature and Courier's construction around it (claims, JSON,
/// base64url, the nonce lookup).
///
/// With the `OpenSSLSigning` trait (scripts/bench turns it on when libcrypto's headers are
/// there) the key is an `OpenSSLP256Key`; without it, a stand-in whose signature and digest are
/// fixed bytes, so only Courier's own cost is measured (the rows say which).
struct DPoPScenario {
    let requestsPerRound: Int
    let rounds: Int

    /// Courier's construction of a proof, not counting the key's signature, stays below this
    /// share of a bearer request through the pipeline: it must not dominate what every request
    /// pays.
    static let constructionTarget = 1.0

    #if OpenSSLSigning
        static let keyName = "OpenSSLP256Key (ES256 on libcrypto)"
        static func makeFactory() -> any DPoPKeyFactory { OpenSSLP256Key.Factory() }
    #else
        static let keyName = "a stand-in key (no cryptography: build with the OpenSSLSigning trait for ES256)"
        static func makeFactory() -> any DPoPKeyFactory { StandInKeyFactory() }
    #endif

    static func provider(token: OAuthToken, factory: any DPoPKeyFactory) -> RefreshableProvider<PipelineAPI> {
        let store = InMemoryTokenStore()
        store.save(token)
        let session = AuthSession(store: store, refresh: { $0 }, dpop: factory)
        return RefreshableProvider<PipelineAPI>(
            auth: session,
            transport: ImmediateTransport(
                statusCode: 200, data: smallJSONBody, headers: ["Content-Type": "application/json"]))
    }

    /// Runs one loop `count` times and nothing else, for `perf` or callgrind: `dpop` (a
    /// DPoP-bound request) or `dpop-bearer`.
    static func spin(_ variant: String, count: Int) async -> Int32 {
        do {
            let factory = makeFactory()
            let key = try await factory.makeKey()
            let expiry = Date().addingTimeInterval(86_400)
            let provider =
                variant == "dpop-bearer"
                ? Self.provider(token: OAuthToken(accessToken: "bearer", expiresAt: expiry), factory: factory)
                : Self.provider(
                    token: OAuthToken(
                        accessToken: "bound", tokenType: "DPoP", expiresAt: expiry, dpopKey: try factory.exportKey(key)),
                    factory: factory)
            _ = try await Timing.perCall(count) { try await provider.request(.item).statusCode }
            return 0
        } catch {
            progress("error: \(error)")
            return 1
        }
    }

    func run() async throws -> ScenarioResult {
        let factory = Self.makeFactory()
        let key = try await factory.makeKey()
        let expiry = Date().addingTimeInterval(86_400)
        let bearer = Self.provider(
            token: OAuthToken(accessToken: String(repeating: "b", count: 40), expiresAt: expiry), factory: factory)
        let bound = Self.provider(
            token: OAuthToken(
                accessToken: String(repeating: "d", count: 40), refreshToken: "r", tokenType: "DPoP",
                expiresAt: expiry, dpopKey: try factory.exportKey(key)),
            factory: factory)
        let builder = DPoPProofBuilder(key: key)
        let url = URL(string: "https://api.example.com/v1/items/42?page=2")!
        let signingInput = Data(repeating: 0x61, count: 420)
        let count = requestsPerRound

        let variants: [Interleaved.Variant<PerCall>] = [
            .init(name: "bearer") { try await Timing.perCall(count) { try await bearer.request(.item).statusCode } },
            .init(name: "dpop") { try await Timing.perCall(count) { try await bound.request(.item).statusCode } },
            .init(name: "proof") {
                try await Timing.perCall(count) {
                    try await builder.proof(method: .get, url: url, accessToken: "token", nonce: "n-1")
                        .compactSerialization.utf8.count
                }
            },
            .init(name: "sign") { try await Timing.perCall(count) { try await key.sign(signingInput).count } },
        ]
        for variant in variants { _ = try await variant.round() }
        let samples = try await Interleaved.run(rounds: rounds, variants)
        let cpuValid = samples.values.allSatisfy { $0.allSatisfy { $0.cpu != nil } }
        func best(_ name: String) -> [Double] { samples[name]!.map { cpuValid ? $0.best : $0.wall } }

        let bearerCost = Summary(best("bearer"))
        let dpopCost = Summary(best("dpop"))
        let added = Summary(zip(best("dpop"), best("bearer")).map { $0 - $1 })
        let sign = Summary(best("sign"))
        let construction = Summary(zip(best("proof"), best("sign")).map { $0 - $1 })
        let share = Summary.ratios(zip(best("proof"), best("sign")).map { $0 - $1 }, best("bearer"))

        var result = ScenarioResult()
        result.set("dpop_bearer_us_per_request", bearerCost)
        result.set("dpop_us_per_request", dpopCost)
        result.set("dpop_added_us_per_request", added)
        result.set("dpop_sign_us", sign)
        result.set("dpop_proof_construction_us", construction)
        result.set("dpop_construction_bearer_ratio", share)
        result.set("dpop_key", Self.keyName)
        let scenario = "DPoP request"
        result.rows = [
            Row(
                scenario: scenario, metric: "bearer request, RefreshableProvider + in-memory transport",
                measured: bearerCost.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "DPoP-bound request, the same", measured: dpopCost.formatted(2, unit: "µs")),
            Row(scenario: scenario, metric: "  added by DPoP", measured: added.formatted(2, unit: "µs")),
            Row(scenario: scenario, metric: "  of which the key's signature", measured: sign.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "  proof construction without the signature",
                measured: construction.formatted(2, unit: "µs")),
            Row(
                scenario: scenario, metric: "    ÷ bearer request", measured: share.formatted(2, unit: "×"),
                target: "≤ \(Self.constructionTarget)×",
                verdict: share.median <= Self.constructionTarget ? .met : .missed),
        ]
        result.notes.append(
            "DPoP: key \(Self.keyName); \(rounds) interleaved rounds of \(Format.integer(count)) sequential requests; "
                + (cpuValid ? "µs are the measuring thread's CPU time." : "µs are wall-clock time."))
        return result
    }
}

#if !OpenSSLSigning
    /// Keys whose signature and digest are fixed bytes: what the proof costs Courier, without
    /// cryptography, on a build without a crypto library.
    struct StandInKeyFactory: DPoPKeyFactory {
        struct Key: DPoPKey {
            let publicJWK = try! DPoPPublicJWK(x: Data(repeating: 1, count: 32), y: Data(repeating: 2, count: 32))
            func sign(_ signingInput: Data) async throws -> Data { Data(repeating: 3, count: 64) }
            func sha256(_ data: Data) throws -> Data { Data(repeating: 4, count: 32) }
        }

        func makeKey() async throws -> any DPoPKey { Key() }
        func exportKey(_ key: any DPoPKey) throws -> Data { Data("stand-in".utf8) }
        func importKey(_ data: Data) throws -> any DPoPKey { Key() }
    }
#endif
