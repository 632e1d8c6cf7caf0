extension Endpoint: CustomReflectable {
    /// What `dump(endpoint)` shows: the URL and headers redacted, the method, and the kind of
    /// task without its parameters (a login task carries a password).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": Redaction.default.redact(urlString: url),
                "method": method,
                "task": task,
                "httpHeaderFields": httpHeaderFields.map { Redaction.default.describe(headers: $0) } as Any,
            ],
            displayStyle: .struct)
    }
}
