/// The counters Courier adds to, named as OpenTelemetry names metrics (a dotted namespace, the
/// unit in braces, no `_total` suffix), for the dashboards an operator keeps beside the
/// `http.client.request.duration` histogram.
///
/// A ``TelemetryPlugin`` adds to ``retries``, ``replays`` and ``dpopNonceRetries`` as the
/// provider's attempts go out; an ``AuthSessionTelemetry`` adds to ``refreshes``,
/// ``storeErrors`` and ``unstoredTokens`` as the session's events happen. Each arrives as a
/// ``RequestTelemetry/addToCounter(_:_:attributes:)`` call.
public enum TelemetryCounter {
    /// `courier.auth.refreshes` (`{refresh}`): renewals the session went through or adopted,
    /// with ``TelemetryKey/authOutcome`` (`refreshed`, `failed`, `session_expired`) and
    /// ``TelemetryKey/authSource`` (`this_session`, or `another_session` for what a session
    /// sharing the store did and this one adopted).
    public static let refreshes = "courier.auth.refreshes"
    /// `courier.request.replays` (`{replay}`): attempts sent again with a renewed token after the
    /// server rejected the one before, with the request's `http.request.method`,
    /// `server.address`, `server.port` and `url.template`.
    public static let replays = "courier.request.replays"
    /// `courier.request.retries` (`{retry}`): attempts sent again by the provider's
    /// ``RetryPolicy`` after a transient failure, with the same attributes as ``replays``.
    public static let retries = "courier.request.retries"
    /// `courier.dpop.nonce_retries` (`{retry}`): attempts sent again because the server asked for
    /// a DPoP nonce (`use_dpop_nonce`), with the same attributes as ``replays``.
    public static let dpopNonceRetries = "courier.dpop.nonce_retries"
    /// `courier.token_store.errors` (`{error}`): writes the session's token store refused, with
    /// ``TelemetryKey/storeOperation`` (`write`).
    public static let storeErrors = "courier.token_store.errors"
    /// `courier.token_store.unstored_tokens` (`{token}`): renewed tokens the store could not
    /// write, which the session kept in memory and used (see ``TokenNotStored``); their writes
    /// are tried again before the next request.
    public static let unstoredTokens = "courier.token_store.unstored_tokens"
}

extension TelemetryKey {
    /// `courier.auth.outcome`: how a renewal counted in ``TelemetryCounter/refreshes`` ended:
    /// `refreshed`, `failed` (transient: the session keeps its token for the next try) or
    /// `session_expired`.
    public static let authOutcome = "courier.auth.outcome"
    /// `courier.auth.source`: `this_session`, or `another_session` for what a session sharing
    /// the store did and this one adopted.
    public static let authSource = "courier.auth.source"
    /// `courier.token_store.operation`: what the store refused (`write`).
    public static let storeOperation = "courier.token_store.operation"
}
