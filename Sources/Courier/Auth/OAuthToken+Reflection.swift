extension OAuthToken: CustomReflectable {
    /// What `dump(token)` and debuggers show: the type and dates, and whether each token is
    /// present — never the access token or the refresh token.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": "<redacted>",
                "refreshToken": refreshToken == nil ? "absent" : "<redacted>",
                "tokenType": tokenType,
                // As text: dumping a NaN or infinite Date traps in Foundation.
                "expiresAt": expiresAt.map(Self.describe) ?? "unknown",
                "issuedAt": issuedAt.map(Self.describe) ?? "unknown",
                "dpopKey": dpopKey == nil ? "absent" : "<redacted>",
            ],
            displayStyle: .struct)
    }
}
