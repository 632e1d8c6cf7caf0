import Foundation

/// Changes to the test server's behaviour, sent with ``TestServer/configure(_:)``.
///
/// Every field is optional: `nil` leaves the server's current value alone.
///
/// ```swift
/// // Tokens live 1.5 s and refresh tokens are not rotated.
/// try await server.configure(.init(tokenLifetime: .seconds(1.5), rotateRefreshTokens: false))
/// // The next two token requests are dropped without an answer.
/// try await server.configure(.init(tokenFault: .drop, tokenFaultCount: 2))
/// // Every token request answers 500 until cleared.
/// try await server.configure(.init(tokenFault: .status500, tokenFaultCount: TestServerConfig.untilCleared))
/// try await server.configure(.init(clearsTokenFault: true))
/// ```
public struct TestServerConfig: Sendable, Equatable, Encodable {
    /// The lifetime of the access tokens issued from now on.
    public enum TokenLifetime: Sendable, Equatable {
        /// Expires this many seconds after issue (fractions allowed); `expires_in` is sent.
        case seconds(TimeInterval)
        /// Never expires; the token response has no `expires_in`.
        case unlimited
    }

    /// A fault the token endpoint (`/oauth/token`) injects instead of answering normally.
    ///
    /// A faulted request still counts in the counters but never consumes or rotates a
    /// refresh token.
    public enum TokenFault: Sendable, Equatable {
        /// 500 with `{"error":"server_error"}`.
        case status500
        /// Waits this many seconds, then answers 503 (set it above the client's time-out).
        case timeout(TimeInterval)
        /// Closes the connection without any response.
        case drop
        /// 200 with the invalid JSON body `{"access_token": "x"`.
        case malformed
        /// 200 with `{"token_type":"Bearer","expires_in":3600}`, no `access_token`.
        case missingAccessToken
        /// 400 with `{"error":"invalid_grant"}`.
        case invalidGrant
        /// 401 with `{"error":"invalid_client"}` and `WWW-Authenticate: Basic realm="oauth"`.
        case invalidClient
        /// 200 with a 1 MiB `access_token` and a rotated `refresh_token` that was never issued
        /// (the presented one stays valid).
        case hugeAccessToken

        /// The server's name for the mode.
        var mode: String {
            switch self {
            case .status500: "500"
            case .timeout: "timeout"
            case .drop: "drop"
            case .malformed: "malformed"
            case .missingAccessToken: "missing_access_token"
            case .invalidGrant: "invalid_grant"
            case .invalidClient: "invalid_client"
            case .hugeAccessToken: "huge_access_token"
            }
        }
    }

    /// A ``tokenFaultCount`` that keeps the fault on for every token request until
    /// ``clearsTokenFault`` removes it.
    public static let untilCleared = -1

    /// Lifetime of the access tokens issued from now on (tokens already issued keep theirs).
    public var tokenLifetime: TokenLifetime?
    /// Whether a refresh grant issues a new refresh token and invalidates the old one
    /// (server default `true`). When `false` the same refresh token is returned again.
    public var rotateRefreshTokens: Bool?
    /// Whether token responses carry `refresh_token` (server default `true`). When `false`
    /// a refresh grant omits it and the old refresh token stays valid (RFC 6749 §6).
    public var includeRefreshToken: Bool?
    /// How long, in seconds, the server waits before answering a refresh grant, to keep a
    /// refresh in flight (server default 0).
    public var refreshDelay: TimeInterval?
    /// A hold key: refresh grants are answered only once the test calls
    /// ``TestServer/releaseHeldRequest(_:)`` with it (``TestServer/waitForHeldRequest(_:)``
    /// returns once one has arrived). A refresh that certainly outlives a time-out, with no
    /// race against the clock.
    public var refreshHold: String?
    /// The fault to inject on the next ``tokenFaultCount`` token requests.
    public var tokenFault: TokenFault?
    /// How many token requests ``tokenFault`` applies to (default 1;
    /// ``untilCleared`` for all of them). Ignored when ``tokenFault`` is `nil`.
    public var tokenFaultCount: Int
    /// Whether the ``TokenFault/invalidClient`` answer carries
    /// `WWW-Authenticate: Basic realm="oauth"` (server default `true`). On Linux,
    /// swift-corelibs-foundation (Swift 6.3.1) never completes a request whose 401 carries
    /// a `Basic` challenge unless the session delegate handles the challenge; `false` lets a
    /// test avoid that.
    public var challengesInvalidClient: Bool?
    /// Removes any pending token fault (applied before ``tokenFault``, so both may be set
    /// to replace one fault with another).
    public var clearsTokenFault: Bool
    /// The probability (0…1) that a token request answers 500 (never consuming a refresh
    /// token).
    public var tokenFaultRate: Double?
    /// The probability (0…1) that a protected request answers 503 with `Retry-After: 0`.
    public var apiFaultRate: Double?
    /// Seconds after a newer token was issued from which a stale token's use counts in
    /// ``TestServerCounters/staleAfterRefresh`` (server default 0.5).
    public var staleGrace: TimeInterval?
    /// Seeds the random fault injection, for a reproducible run.
    public var faultSeed: Int?
    /// Whether a used (rotated-away) refresh token presented again revokes its whole family:
    /// every refresh and access token descended from the same sign-in, as servers with
    /// rotation do (server default `false`). Counted in
    /// ``TestServerCounters/refreshTokenReuses``.
    public var reuseDetection: Bool?
    /// JSON text the token endpoint sends verbatim as `expires_in` (`"\"nan\""`, `"-5"`,
    /// `"1e309"` …) instead of the real lifetime, which the server still enforces.
    public var expiresInOverride: ExpiresInOverride?
    /// The DPoP mode's settings (nonces, their rotation, the `iat` window); `nil` leaves them.
    /// The mode itself needs no switch: a token request with a `DPoP` proof gets tokens bound
    /// to its key, which the API then accepts only as `Authorization: DPoP` with a proof.
    public var dpop: DPoPSettings?

    /// What ``expiresInOverride`` does.
    public enum ExpiresInOverride: Sendable, Equatable {
        /// Send this JSON text as `expires_in`.
        case json(String)
        /// Send the real lifetime again.
        case cleared
    }

    /// Creates a set of changes; every `nil` field leaves the server's value alone.
    public init(
        tokenLifetime: TokenLifetime? = nil,
        rotateRefreshTokens: Bool? = nil,
        includeRefreshToken: Bool? = nil,
        refreshDelay: TimeInterval? = nil,
        refreshHold: String? = nil,
        tokenFault: TokenFault? = nil,
        tokenFaultCount: Int = 1,
        challengesInvalidClient: Bool? = nil,
        clearsTokenFault: Bool = false,
        tokenFaultRate: Double? = nil,
        apiFaultRate: Double? = nil,
        staleGrace: TimeInterval? = nil,
        faultSeed: Int? = nil,
        reuseDetection: Bool? = nil,
        expiresInOverride: ExpiresInOverride? = nil
    ) {
        self.reuseDetection = reuseDetection
        self.expiresInOverride = expiresInOverride
        self.tokenLifetime = tokenLifetime
        self.rotateRefreshTokens = rotateRefreshTokens
        self.includeRefreshToken = includeRefreshToken
        self.refreshDelay = refreshDelay
        self.refreshHold = refreshHold
        self.tokenFault = tokenFault
        self.tokenFaultCount = tokenFaultCount
        self.challengesInvalidClient = challengesInvalidClient
        self.clearsTokenFault = clearsTokenFault
        self.tokenFaultRate = tokenFaultRate
        self.apiFaultRate = apiFaultRate
        self.staleGrace = staleGrace
        self.faultSeed = faultSeed
    }

    private enum CodingKeys: String, CodingKey {
        case tokenLifetime = "token_lifetime"
        case rotateRefreshTokens = "rotate_refresh_tokens"
        case includeRefreshToken = "include_refresh_token"
        case refreshDelay = "refresh_delay_ms"
        case refreshHold = "refresh_hold"
        case tokenFault = "token_fault"
        case tokenFaultSleep = "token_fault_sleep"
        case challengesInvalidClient = "invalid_client_challenge"
        case tokenFaultRate = "token_fault_rate"
        case apiFaultRate = "api_fault_rate"
        case staleGrace = "stale_grace_ms"
        case faultSeed = "fault_seed"
        case reuseDetection = "reuse_detection"
        case expiresInOverride = "expires_in_override"
        case dpop
    }

    private struct FaultRule: Encodable {
        let mode: String
        let count: Int
    }

    /// Encodes the body of `POST /_admin/config` (snake_case keys, only the set fields).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch tokenLifetime {
        case .seconds(let seconds)?: try container.encode(seconds, forKey: .tokenLifetime)
        case .unlimited?: try container.encodeNil(forKey: .tokenLifetime)
        case nil: break
        }
        try container.encodeIfPresent(rotateRefreshTokens, forKey: .rotateRefreshTokens)
        try container.encodeIfPresent(includeRefreshToken, forKey: .includeRefreshToken)
        try container.encodeIfPresent(refreshDelay.map { $0 * 1_000 }, forKey: .refreshDelay)
        try container.encodeIfPresent(refreshHold, forKey: .refreshHold)
        try container.encodeIfPresent(challengesInvalidClient, forKey: .challengesInvalidClient)
        try container.encodeIfPresent(tokenFaultRate, forKey: .tokenFaultRate)
        try container.encodeIfPresent(apiFaultRate, forKey: .apiFaultRate)
        try container.encodeIfPresent(staleGrace.map { $0 * 1_000 }, forKey: .staleGrace)
        try container.encodeIfPresent(faultSeed, forKey: .faultSeed)
        try container.encodeIfPresent(reuseDetection, forKey: .reuseDetection)
        try container.encodeIfPresent(dpop, forKey: .dpop)
        switch expiresInOverride {
        case .json(let text)?: try container.encode(text, forKey: .expiresInOverride)
        case .cleared?: try container.encodeNil(forKey: .expiresInOverride)
        case nil: break
        }
        if let tokenFault {
            try container.encode(FaultRule(mode: tokenFault.mode, count: tokenFaultCount), forKey: .tokenFault)
            if case .timeout(let seconds) = tokenFault {
                try container.encode(seconds, forKey: .tokenFaultSleep)
            }
        } else if clearsTokenFault {
            try container.encodeNil(forKey: .tokenFault)
        }
    }
}
