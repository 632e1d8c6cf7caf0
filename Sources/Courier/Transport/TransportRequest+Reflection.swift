extension TransportRequest: CustomReflectable {
    /// What `dump(request)` shows: the request in one redacted line, the body's kind and the
    /// download destination — never an `Authorization` or `Cookie` value.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "urlRequest": RequestSummary.describe(urlRequest),
                "body": body,
                "downloadDestination": downloadDestination as Any,
            ],
            displayStyle: .struct)
    }
}
