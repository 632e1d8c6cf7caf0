import Foundation

/// The server's counters, as `GET /_admin/counters` reports them.
///
/// All counters start at zero and go back to zero with ``TestServer/resetCounters()``;
/// ``generation`` is not a counter and survives a reset. Requests to `/_admin/…` are never
/// counted.
public struct TestServerCounters: Decodable, Sendable, Equatable {
    /// Requests to `/oauth/token`, whatever their grant or outcome (faults included).
    public let tokenRequests: Int
    /// `grant_type=password` requests (including refused ones).
    public let passwordGrants: Int
    /// `grant_type=refresh_token` requests received, including faulted and failed ones.
    public let refreshGrants: Int
    /// Refresh grants that issued a new access token.
    public let refreshSuccesses: Int
    /// `grant_type=client_credentials` requests.
    public let clientCredentialsGrants: Int
    /// Requests to `/api/…` and `/biz/…`.
    public let protectedRequests: Int
    /// Protected requests that carried a valid access token and were served.
    public let protectedOK: Int
    /// Protected requests refused: 401 on `/api/…` (including `/api/always-401/…`), or a
    /// 200 with business status `"8"` on `/biz/…`.
    public let protected401: Int
    /// Every request except `/_admin/…`.
    public let requestsTotal: Int
    /// The generation of the latest access token issued (1, 2, 3 …; 0 before the first).
    public let generation: Int
    /// Protected requests (`/api/…`, `/biz/…`) that carried an `Authorization` header.
    public let authHeadersSeen: Int
    /// Protected requests whose access token was known but expired or revoked.
    public let staleTokenUses: Int
    /// Stale uses of a token that had already been replaced by a newer one issued more than
    /// the grace period (`staleGrace`, default 0.5 s) earlier: a client that kept using a
    /// token it should have dropped. Requests in flight during a refresh stay within the
    /// grace.
    public let staleAfterRefresh: Int
    /// Protected requests answered 503 by the random fault injection (`apiFaultRate`).
    public let protectedFaults: Int
    /// Token requests answered 500 by the random fault injection (`tokenFaultRate`).
    public let tokenRandomFaults: Int
    /// Refresh grants that presented a refresh token already used (rotated away) while
    /// ``TestServerConfig/reuseDetection`` was on; each revoked its whole token family.
    public let refreshTokenReuses: Int
    /// Requests refused with `use_dpop_nonce` (a 400 from the token endpoint, a 401 from the
    /// API): a proof without the server's current nonce.
    public let dpopNonceChallenges: Int
    /// Proofs refused as `invalid_dpop_proof` (bad signature, htm, htu, iat, ath, a replayed
    /// jti, a refresh signed by another key) or tokens bound to another key.
    public let dpopProofRejections: Int
    /// Token responses that issued DPoP-bound tokens (`token_type: DPoP`).
    public let dpopBoundIssued: Int
    /// A DPoP-bound token sent as `Bearer`, or a bearer token sent as `DPoP`: refused.
    public let dpopBearerMisuses: Int
    /// Redirects answered by `/api/dpop-redirect/…` to a request whose proof (for that hop's
    /// own URL and method, with a fresh `jti` and a valid nonce) was accepted.
    public let dpopRedirectHops: Int
    /// Proofs whose nonce was a single-use nonce already used by another proof (single-use
    /// mode): a client that sent one challenge's nonce twice.
    public let dpopNonceReuses: Int

    enum CodingKeys: String, CodingKey {
        case tokenRequests = "token_requests"
        case passwordGrants = "password_grants"
        case refreshGrants = "refresh_grants"
        case refreshSuccesses = "refresh_successes"
        case clientCredentialsGrants = "client_credentials_grants"
        case protectedRequests = "protected_requests"
        case protectedOK = "protected_ok"
        case protected401 = "protected_401"
        case requestsTotal = "requests_total"
        case generation
        case authHeadersSeen = "auth_headers_seen"
        case staleTokenUses = "stale_token_uses"
        case staleAfterRefresh = "stale_after_refresh"
        case protectedFaults = "protected_faults"
        case tokenRandomFaults = "token_random_faults"
        case refreshTokenReuses = "refresh_token_reuses"
        case dpopNonceChallenges = "dpop_nonce_challenges"
        case dpopProofRejections = "dpop_proof_rejections"
        case dpopBoundIssued = "dpop_bound_issued"
        case dpopBearerMisuses = "dpop_bearer_misuses"
        case dpopRedirectHops = "dpop_redirect_hops"
        case dpopNonceReuses = "dpop_nonce_reuses"
    }
}
