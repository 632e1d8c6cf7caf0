extension OAuthToken {
    /// The longest access or refresh token accepted: 16 KiB (16,384 bytes of UTF-8).
    ///
    /// The access token goes into an `Authorization` header, and servers refuse long header
    /// lines: nginx reads a request's header lines into 8 KiB buffers by default, Apache's
    /// `LimitRequestFieldSize` is 8,190 bytes, Node.js allows 16 KiB for all the headers of a
    /// request. Real tokens are far shorter — a signed JWT with its claims is one to a few
    /// kilobytes — so a longer one is a broken or hostile answer, and a session that stored it
    /// could never make a request again. The refresh token has the same bound: it is a token
    /// too, and a rotated one that replaced a good one would end the session at the next
    /// refresh.
    public static let maximumTokenLength = 16 * 1024

    /// The longest ``tokenType`` accepted: 64 bytes. It is an HTTP authentication scheme
    /// (`Bearer`, `DPoP`, `MAC`…), a short word; the longest registered ones
    /// (`SCRAM-SHA-256`) have 13 characters.
    public static let maximumTokenTypeLength = 64

    /// Checks that the token can be used: an access token that is not empty, has no control
    /// character (CR, LF, NUL, tab… would end the `Authorization` header line) and is at most
    /// ``maximumTokenLength`` bytes; a refresh token of at most ``maximumTokenLength`` bytes;
    /// a ``tokenType`` that is an HTTP token (RFC 9110 §11.1) of at most
    /// ``maximumTokenTypeLength`` bytes.
    ///
    /// ``AuthSession`` checks every token before it stores it (signing in, refreshing,
    /// acquiring), and ``init(tokenResponse:receivedAt:)`` every token it parses.
    ///
    /// - Throws: ``TokenValidationError``, which names the field and its size, never its value.
    public func validate() throws(TokenValidationError) {
        try Self.check(accessToken, .accessToken, limit: Self.maximumTokenLength)
        if let scalar = accessToken.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw TokenValidationError(field: .accessToken, problem: .controlCharacter(scalar))
        }
        if let refreshToken {
            let length = refreshToken.utf8.count
            guard length <= Self.maximumTokenLength else {
                throw TokenValidationError(
                    field: .refreshToken, problem: .tooLong(length: length, limit: Self.maximumTokenLength))
            }
        }
        try Self.check(tokenType, .tokenType, limit: Self.maximumTokenTypeLength)
        if let (_, character) = RequestValidation.firstNonToken(tokenType), let character {
            throw TokenValidationError(field: .tokenType, problem: .notAToken(character))
        }
    }

    /// `token`, or why it cannot be used: for a refresh or acquire closure's result.
    static func checked(_ token: OAuthToken) -> Result<OAuthToken, any Error> {
        do throws(TokenValidationError) {
            try token.validate()
            return .success(token)
        } catch {
            return .failure(error)
        }
    }

    /// Not empty and at most `limit` bytes.
    private static func check(_ value: String, _ field: TokenValidationError.Field, limit: Int)
        throws(TokenValidationError)
    {
        // The length first: a megabyte is measured, never scanned for anything else.
        let length = value.utf8.count
        guard length > 0 else { throw TokenValidationError(field: field, problem: .empty) }
        guard length <= limit else {
            throw TokenValidationError(field: field, problem: .tooLong(length: length, limit: limit))
        }
    }
}
