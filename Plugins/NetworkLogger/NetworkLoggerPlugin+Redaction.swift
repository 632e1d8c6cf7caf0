import Courier

extension NetworkLoggerPlugin {
    /// Which secrets a ``NetworkLoggerPlugin`` hides: Courier's `Redaction`, the same rules
    /// and the same lists that `CourierError` descriptions use.
    ///
    /// ```swift
    /// let redaction = NetworkLoggerPlugin.Redaction.default
    ///     .adding(headers: ["X-Tenant"], keys: ["otp", "pin"])
    /// ```
    public typealias Redaction = Courier.Redaction
}
