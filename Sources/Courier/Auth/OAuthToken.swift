import Foundation

/// An OAuth 2 access token, with the refresh token and expiry that come with it.
///
/// Parse one from a token endpoint's answer with ``init(tokenResponse:receivedAt:)``, or
/// build one yourself. Its description never shows the token or the refresh token, so it is
/// safe to log.
public struct OAuthToken: Codable, Sendable, Equatable {
    /// The access token sent in `Authorization`.
    public var accessToken: String
    /// The refresh token, if the server issued one.
    public var refreshToken: String?
    /// The scheme, `"Bearer"` unless the server says otherwise.
    public var tokenType: String
    /// When the access token expires; `nil` means no expiry is known: the token is used
    /// until the server rejects it.
    public var expiresAt: Date? {
        get { times.expiresAt }
        set { times.expiresAt = newValue }
    }
    /// When the token was issued (received), so its lifetime is known after a reload too.
    public var issuedAt: Date? {
        get { times.issuedAt }
        set { times.issuedAt = newValue }
    }
    /// The DPoP key the token is bound to (RFC 9449), as its session's ``DPoPKeyFactory``
    /// exported it: a DPoP session (``AuthSession/init(store:refresh:acquire:now:refreshWindow:refreshTimeout:abandonRefreshAfter:sessionEndingRule:dpop:)``)
    /// sets it on every token it stores, so the key travels with the token to every process
    /// that shares the store. `nil` for a bearer token. It is a secret, as the refresh token
    /// is: never shown by ``description`` or `dump()`.
    public var dpopKey: Data? {
        get { boundKey?.data }
        set { boundKey = newValue.map(BoundKey.init) }
    }

    // A token is copied into every frame of a request that waits for a refresh, so its size
    // is paid ten thousand times over by ten thousand waiting requests: the key lives out of
    // line (8 bytes, nil for a bearer token) and the two optional dates share one 17-byte
    // value (two padded `Date?`s take 32), which keeps the token as small as it was before
    // it carried a key (80 bytes; BENCHMARKS.md, "Requests queued behind a slow refresh").
    private var boundKey: BoundKey?
    private var times: Times

    /// Creates a token.
    ///
    /// `dpopKey` is for tokens bound to a DPoP key; a DPoP session sets it itself.
    public init(
        accessToken: String, refreshToken: String? = nil, tokenType: String = "Bearer",
        expiresAt: Date? = nil, issuedAt: Date? = nil, dpopKey: Data? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.boundKey = dpopKey.map(BoundKey.init)
        self.times = Times(expiresAt: expiresAt, issuedAt: issuedAt)
    }

    /// Parses an RFC 6749 §5.1 token response: `access_token`, `token_type`, `expires_in`,
    /// `refresh_token`.
    ///
    /// The body must be a JSON object with these fields (only `access_token` is required):
    ///
    /// | Field | JSON type | Becomes |
    /// |---|---|---|
    /// | `access_token` | string | ``accessToken`` |
    /// | `refresh_token` | string | ``refreshToken`` (an empty one counts as absent) |
    /// | `token_type` | string | ``tokenType`` (`Bearer` when absent) |
    /// | `expires_in` | number of seconds, or a string of decimal digits | ``expiresAt`` |
    ///
    /// For a token endpoint with other field names, a wrapping object or an expiry given as
    /// a date, describe its answer with a ``TokenResponseFormat`` and call
    /// ``init(tokenResponse:format:receivedAt:)``.
    ///
    /// `expires_in` (a JSON number, or a string of decimal digits such as `"3600"`; not a
    /// boolean, nor `"0x10"` or `"1e3"`) counts from `receivedAt`, which
    /// becomes ``issuedAt``. When `expires_in` is absent or unusable and the access token is
    /// a JWT, its `exp` claim is used; otherwise the expiry is unknown (``expiresAt`` is
    /// `nil`) and the token is used until the server rejects it. A lower-case `bearer` is
    /// normalised to `Bearer`.
    ///
    /// A lifetime shorter than ``minimumLifetime`` (one second: zero, negative, `1e-300`), not
    /// finite (`1e309`) or longer than ``maximumLifetime`` counts as unknown, and so does a JWT
    /// `exp` that is not at least a second after `receivedAt` (the server just issued the
    /// token, so one of the clocks is wrong):
    /// otherwise every request would refresh first, and the refresh limit would lock the
    /// user out although the server accepts the token.
    ///
    /// - Throws: ``AuthenticationError/invalidTokenResponse`` when the body is not JSON or
    ///   has no `access_token` string, or when the token cannot be used (``validate()``): an
    ///   empty `access_token`, one holding a control character (CR, LF …) or longer than
    ///   ``maximumTokenLength``, a `refresh_token` longer than that, or a `token_type` that
    ///   is not a short HTTP token. ``init(response:receivedAt:)`` says which field.
    public init(tokenResponse: Data, receivedAt: Date) throws(AuthenticationError) {
        do throws(TokenResponseFailure) {
            try self.init(parsing: tokenResponse, receivedAt: receivedAt)
        } catch {
            throw .invalidTokenResponse
        }
    }

    /// Why a body is not a usable token response.
    enum TokenResponseFailure: Error {
        /// Not JSON, or no `access_token` string.
        case notATokenResponse
        /// A token response whose token cannot be used.
        case unusable(TokenValidationError)
    }

    /// ``init(tokenResponse:format:receivedAt:)``, saying why it failed.
    init(parsing tokenResponse: Data, format: TokenResponseFormat = .oauth, receivedAt: Date)
        throws(TokenResponseFailure)
    {
        guard let object = Self.jsonObject(tokenResponse, lifetimeKey: format.lifetimeKey),
            let accessToken = JSONKeyPath.value(at: format.accessToken, in: object) as? String
        else {
            throw .notATokenResponse
        }
        let type = format.tokenType.flatMap { JSONKeyPath.value(at: $0, in: object) as? String } ?? "Bearer"
        self.accessToken = accessToken
        self.refreshToken = format.refreshToken.flatMap { JSONKeyPath.value(at: $0, in: object) as? String }
            .flatMap { $0.isEmpty ? nil : $0 }
        self.tokenType = type.caseInsensitiveCompare("bearer") == .orderedSame ? "Bearer" : type
        self.boundKey = nil
        self.times = Times(expiresAt: nil, issuedAt: receivedAt)
        // Checked before anyone can store it (and before a megabyte is read as a JWT): a
        // token that cannot be sent must not replace one that can, nor its rotated refresh
        // token a good one.
        do throws(TokenValidationError) {
            try validate()
        } catch {
            throw .unusable(error)
        }
        self.expiresAt = Self.expiry(in: object, format: format.expiry, receivedAt: receivedAt)
        if expiresAt == nil, format.expiry != .unknown, let expiry = JWT.expiry(of: accessToken),
            Self.usable(expiry.timeIntervalSince(receivedAt)) != nil
        {
            self.expiresAt = expiry
        }
    }

    /// The expiry that `object`'s field says, if it is there and gives a usable lifetime.
    private static func expiry(in object: Any, format: TokenResponseFormat.Expiry, receivedAt: Date) -> Date? {
        switch format {
        case .lifetime(let keyPath):
            return lifetime(JSONKeyPath.value(at: keyPath, in: object)).map { receivedAt.addingTimeInterval($0) }
        case .date(let keyPath):
            // A moment in the past or beyond the longest lifetime is as unusable as such a lifetime.
            guard let date = TokenResponseFormat.date(JSONKeyPath.value(at: keyPath, in: object)),
                usable(date.timeIntervalSince(receivedAt)) != nil
            else { return nil }
            return date
        case .jwt, .unknown:
            return nil
        }
    }

    /// The longest lifetime taken at its word: 100 years. A token response claiming more
    /// is treated as one whose expiry is unknown.
    public static let maximumLifetime: TimeInterval = 100 * 365 * 86_400

    /// The token's lifetime (`expiresAt − issuedAt`), when both are known and make a
    /// positive, finite lifetime.
    public var lifetime: TimeInterval? {
        guard let expiresAt, let issuedAt else { return nil }
        let lifetime = expiresAt.timeIntervalSince(issuedAt)
        return lifetime.isFinite && lifetime > 0 ? lifetime : nil
    }

    /// Whether the token expires within `interval` seconds of `now` (or already has). A
    /// token without ``expiresAt`` (or with a NaN or infinite one) never expires by the
    /// clock; the server decides.
    public func expires(within interval: TimeInterval, now: Date) -> Bool {
        guard let expiresAt, expiresAt.timeIntervalSinceReferenceDate.isFinite else { return false }
        return expiresAt.timeIntervalSince(now) <= interval
    }

    /// The token response as a JSON object. Foundation refuses a whole document holding a
    /// number it cannot represent (`"expires_in": 1e309`), so such an `expires_in` is read
    /// again as `null` — an unknown lifetime, as the string `"1e309"` gives.
    /// `lifetimeKey` is the lifetime field's name (the last component of its key path).
    private static func jsonObject(_ data: Data, lifetimeKey: String?) -> [String: Any]? {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] { return object }
        guard let lifetimeKey, let repaired = withoutNumber(after: lifetimeKey, in: data) else { return nil }
        return try? JSONSerialization.jsonObject(with: repaired) as? [String: Any]
    }

    /// `data` with the number after the first `"name":` replaced by `null`, or `nil`
    /// when there is no such number.
    private static func withoutNumber(after name: String, in data: Data) -> Data? {
        let bytes = [UInt8](data)
        let key = Array("\"\(name)\"".utf8)
        guard let start = bytes.firstRange(of: key)?.lowerBound else { return nil }
        var index = start + key.count
        func skipSpaces() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipSpaces()
        let numberStart = index
        while index < bytes.count, Array("+-.0123456789eE".utf8).contains(bytes[index]) { index += 1 }
        guard index > numberStart else { return nil }
        return Data(bytes[..<numberStart] + Array("null".utf8) + bytes[index...])
    }

    /// `expires_in` as a usable lifetime: a JSON number, or a string of decimal digits (with
    /// at most one decimal point; surrounding spaces allowed), the same rules for both. A JSON
    /// `true` or `false`, a hexadecimal (`"0x10"`), exponent (`"1e3"`) or signed string, and
    /// anything else, is no lifetime.
    private static func lifetime(_ value: Any?) -> TimeInterval? {
        switch value {
        case let number as NSNumber:
            // A JSON `true` is no number of seconds. (`is Bool` cannot tell: a JSON 1 is an
            // NSNumber that casts to `Bool` too; a boolean's NSNumber has the type `c`.)
            guard !isBoolean(number) else { return nil }
            return usable(number.doubleValue)
        case let string as String:
            return decimalSeconds(string.trimmingCharacters(in: .whitespaces)).flatMap(usable)
        default: return nil
        }
    }

    /// Whether `number` came from a JSON `true` or `false`.
    static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    /// `text` as seconds when it is decimal digits with at most one decimal point between
    /// digits (`3600`, `3600.5`); `nil` otherwise. At most 32 characters: no lifetime needs more.
    private static func decimalSeconds(_ text: String) -> TimeInterval? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 32 else { return nil }
        var points = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                points += 1
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                return nil
            }
        }
        guard points <= 1, bytes.first != UInt8(ascii: "."), bytes.last != UInt8(ascii: ".") else { return nil }
        return Double(text)
    }

    /// The shortest lifetime taken at its word: one second. A shorter one (`1e-300`, `0.5`)
    /// would have every request refresh first; it counts as unknown.
    public static let minimumLifetime: TimeInterval = 1

    /// `seconds` if it is a finite lifetime of at least ``minimumLifetime`` and no longer than
    /// ``maximumLifetime``.
    private static func usable(_ seconds: TimeInterval) -> TimeInterval? {
        seconds.isFinite && seconds >= minimumLifetime && seconds <= maximumLifetime ? seconds : nil
    }
}

extension OAuthToken: CustomStringConvertible, CustomDebugStringConvertible {
    /// The type, expiry and whether a refresh token is present — never the tokens.
    public var description: String {
        let expiry: String
        if let expiresAt {
            expiry = "expires \(Self.describe(expiresAt))"
        } else {
            expiry = "never expires"
        }
        let key = dpopKey == nil ? "" : ", DPoP key present"
        return
            "OAuthToken(\(tokenType), \(expiry), refresh token \(refreshToken == nil ? "absent" : "present")\(key))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A date as text, without trapping: `Date.description` traps on NaN or infinite dates
    /// (a hand-built token may hold one) and on dates far outside the calendar.
    static func describe(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return "at an invalid date" }
        // Years 1 to 9999 format safely; anything else is shown as a count of seconds.
        guard seconds > -62_135_596_800, seconds < 253_402_300_800 else {
            return "\(seconds) s after 1970"
        }
        return "\(date)"
    }
}

/// Reads the `exp` claim of a JWT, without verifying it (the server does that).
enum JWT {
    static func expiry(of token: String) -> Date? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return nil }
        var base64 = segments[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exp = claims["exp"] as? NSNumber, exp.doubleValue.isFinite
        else { return nil }
        return Date(timeIntervalSince1970: exp.doubleValue)
    }
}

extension OAuthToken {
    /// The exported DPoP key, held by reference so that a token carries 8 bytes for it.
    private final class BoundKey: Sendable {
        let data: Data
        init(_ data: Data) { self.data = data }
    }

    /// `expiresAt` and `issuedAt` in 17 bytes: the two intervals since the reference date and
    /// which of them are present.
    private struct Times: Sendable {
        private var expires: Double = 0
        private var issued: Double = 0
        private var present: UInt8 = 0

        init(expiresAt: Date?, issuedAt: Date?) {
            self.expiresAt = expiresAt
            self.issuedAt = issuedAt
        }

        var expiresAt: Date? {
            get { present & 1 != 0 ? Date(timeIntervalSinceReferenceDate: expires) : nil }
            set {
                expires = newValue?.timeIntervalSinceReferenceDate ?? 0
                present = newValue == nil ? present & ~1 : present | 1
            }
        }

        var issuedAt: Date? {
            get { present & 2 != 0 ? Date(timeIntervalSinceReferenceDate: issued) : nil }
            set {
                issued = newValue?.timeIntervalSinceReferenceDate ?? 0
                present = newValue == nil ? present & ~2 : present | 2
            }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case accessToken, refreshToken, tokenType, expiresAt, issuedAt, dpopKey
    }

    /// Decodes the fields ``encode(to:)`` writes; `dpopKey` is absent from a bearer token's
    /// (and from every token stored before DPoP).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessToken: try container.decode(String.self, forKey: .accessToken),
            refreshToken: try container.decodeIfPresent(String.self, forKey: .refreshToken),
            tokenType: try container.decode(String.self, forKey: .tokenType),
            expiresAt: try container.decodeIfPresent(Date.self, forKey: .expiresAt),
            issuedAt: try container.decodeIfPresent(Date.self, forKey: .issuedAt),
            dpopKey: try container.decodeIfPresent(Data.self, forKey: .dpopKey))
    }

    /// Encodes `accessToken`, `refreshToken`, `tokenType`, `expiresAt`, `issuedAt` and
    /// `dpopKey`, each optional one only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(issuedAt, forKey: .issuedAt)
        try container.encodeIfPresent(dpopKey, forKey: .dpopKey)
    }

    /// Whether every field is the same.
    public static func == (lhs: OAuthToken, rhs: OAuthToken) -> Bool {
        lhs.accessToken == rhs.accessToken && lhs.refreshToken == rhs.refreshToken && lhs.tokenType == rhs.tokenType
            && lhs.expiresAt == rhs.expiresAt && lhs.issuedAt == rhs.issuedAt && lhs.dpopKey == rhs.dpopKey
    }
}
