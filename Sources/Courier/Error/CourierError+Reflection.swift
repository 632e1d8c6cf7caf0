extension CourierError: CustomReflectable {
    /// What `dump(error)` and debuggers show: the redacted description, the response (whose
    /// own mirror is redacted) and the underlying error's redacted description, never its
    /// raw fields (a `URLError`'s user info can hold a URL with a token).
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [("description", description)]
        if let response { children.append(("response", response)) }
        if let underlyingError {
            children.append(("underlyingError", ErrorText.describe(underlyingError, redaction: .default)))
        }
        return Mirror(self, children: children, displayStyle: .enum)
    }
}

extension AuthenticationError: CustomReflectable {
    /// What `dump(error)` and debuggers show: the redacted description only.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .enum)
    }
}
