import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A token endpoint that speaks its own JSON is read with a `TokenResponseFormat`, with every
/// check the OAuth parser makes.
@Suite("TokenResponseFormat")
struct TokenResponseFormatTests {
    let received = Date(timeIntervalSince1970: 1_700_000_000)

    static func base64URL(_ string: String) -> String {
        Data(string.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func response(_ status: Int, _ body: String) -> Response {
        Response(statusCode: status, data: Data(body.utf8))
    }

    @Test("camel-case fields were refused as not a token response; .camelCase reads them (it failed before)")
    func camelCase() throws {
        let body = #"{"accessToken":"at-1","refreshToken":"rt-1","expiresIn":60}"#
        #expect(throws: CourierError.authentication(.invalidTokenResponse)) {
            try OAuthToken(response: Self.response(200, body), receivedAt: received)
        }
        let token = try OAuthToken(response: Self.response(200, body), format: .camelCase, receivedAt: received)
        #expect(token.accessToken == "at-1" && token.refreshToken == "rt-1" && token.tokenType == "Bearer")
        #expect(token.expiresAt == received.addingTimeInterval(60) && token.issuedAt == received)
    }

    @Test("OAuth's format is the default and reads what init(tokenResponse:receivedAt:) reads")
    func oauthIsTheDefault() throws {
        #expect(TokenResponseFormat() == .oauth)
        let body = Data(#"{"access_token":"a","refresh_token":"r","token_type":"bearer","expires_in":"90"}"#.utf8)
        let plain = try OAuthToken(tokenResponse: body, receivedAt: received)
        #expect(try OAuthToken(tokenResponse: body, format: .oauth, receivedAt: received) == plain)
        #expect(plain.tokenType == "Bearer" && plain.expiresAt == received.addingTimeInterval(90))
    }

    @Test("custom key paths into a wrapping object, and the expiry as an ISO 8601 date")
    func keyPathsAndISODate() throws {
        let format = TokenResponseFormat(
            accessToken: "data.token", refreshToken: "data.refresh", tokenType: nil, expiry: .date("data.expires"))
        let body = #"{"code":0,"data":{"token":"at","refresh":"rt","expires":"2023-11-14T22:15:00Z"}}"#
        let token = try OAuthToken(response: Self.response(200, body), format: format, receivedAt: received)
        #expect(token.accessToken == "at" && token.refreshToken == "rt")
        #expect(token.expiresAt == received.addingTimeInterval(100))
        let fractional = #"{"data":{"token":"at","expires":"2023-11-14T23:15:00.500+01:00"}}"#
        let second = try OAuthToken(response: Self.response(200, fractional), format: format, receivedAt: received)
        #expect(second.expiresAt == received.addingTimeInterval(100.5))
        #expect(second.refreshToken == nil)
    }

    @Test("an expiry date as epoch seconds or milliseconds, a number or a string")
    func epochDates() throws {
        let format = TokenResponseFormat(accessToken: "t", expiry: .date("exp"))
        for value in ["1700000100", #""1700000100""#, "1700000100000", #"" 1700000100000 ""#] {
            let token = try OAuthToken(
                tokenResponse: Data(#"{"t":"at","exp":\#(value)}"#.utf8), format: format, receivedAt: received)
            #expect(token.expiresAt == received.addingTimeInterval(100), "exp \(value)")
        }
    }

    @Test(
        "an expiry date in the past, beyond 100 years, not a date or a Bool is unknown, as an unusable expires_in is",
        arguments: ["1699999999", #""2023-11-14T22:13:19Z""#, "1e300", #""tomorrow""#, "true", "null", #"{"a":1}"#])
    func unusableDates(_ value: String) throws {
        let format = TokenResponseFormat(accessToken: "t", expiry: .date("exp"))
        let token = try OAuthToken(
            tokenResponse: Data(#"{"t":"opaque","exp":\#(value)}"#.utf8), format: format, receivedAt: received)
        #expect(token.expiresAt == nil)
    }

    @Test("the JWT's exp when the expiry field is absent, or as the only source; .unknown reads neither")
    func jwtExpiry() throws {
        let jwt = Self.base64URL(#"{"alg":"none"}"#) + "." + Self.base64URL(#"{"exp":1700000123}"#) + ".sig"
        let body = Data(#"{"accessToken":"\#(jwt)","expiresAt":null}"#.utf8)
        for expiry in [TokenResponseFormat.Expiry.jwt, .date("expiresAt"), .lifetime("expiresIn")] {
            let format = TokenResponseFormat(accessToken: "accessToken", expiry: expiry)
            let token = try OAuthToken(tokenResponse: body, format: format, receivedAt: received)
            #expect(token.expiresAt == Date(timeIntervalSince1970: 1_700_000_123), "\(expiry)")
        }
        let unknown = TokenResponseFormat(accessToken: "accessToken", expiry: .unknown)
        #expect(try OAuthToken(tokenResponse: body, format: unknown, receivedAt: received).expiresAt == nil)
    }

    @Test("a custom lifetime field that Foundation cannot parse (1e309) is an unknown lifetime, as expires_in is")
    func hugeLifetime() throws {
        let format = TokenResponseFormat(accessToken: "token", expiry: .lifetime("data.ttl"))
        let token = try OAuthToken(
            tokenResponse: Data(#"{"token":"at","data":{"ttl":1e309}}"#.utf8), format: format, receivedAt: received)
        #expect(token.accessToken == "at" && token.expiresAt == nil)
    }

    @Test("a custom format keeps the OAuth parser's checks: 16 KiB tokens, control characters, token type")
    func boundsKept() throws {
        let format = TokenResponseFormat.camelCase
        let long = String(repeating: "a", count: OAuthToken.maximumTokenLength + 1)
        let cases: [(String, TokenValidationError)] = [
            (
                #"{"accessToken":"\#(long)"}"#,
                TokenValidationError(
                    field: .accessToken,
                    problem: .tooLong(length: long.utf8.count, limit: OAuthToken.maximumTokenLength))
            ),
            (
                #"{"accessToken":"a","refreshToken":"\#(long)"}"#,
                TokenValidationError(
                    field: .refreshToken,
                    problem: .tooLong(length: long.utf8.count, limit: OAuthToken.maximumTokenLength))
            ),
            (#"{"accessToken":"a\r\nb"}"#, TokenValidationError(field: .accessToken, problem: .controlCharacter("\r"))),
            (#"{"accessToken":""}"#, TokenValidationError(field: .accessToken, problem: .empty)),
            (
                #"{"accessToken":"a","tokenType":"Bea rer"}"#,
                TokenValidationError(field: .tokenType, problem: .notAToken(" "))
            ),
        ]
        for (body, expected) in cases {
            let error = #expect(throws: CourierError.self) {
                try OAuthToken(response: Self.response(200, body), format: format, receivedAt: received)
            }
            guard case .objectMapping(let problem as TokenValidationError, _) = error else {
                Issue.record("expected objectMapping with a TokenValidationError, got \(String(describing: error))")
                continue
            }
            #expect(problem == expected)
            #expect(!String(describing: error).contains(long))
            #expect(throws: AuthenticationError.invalidTokenResponse) {
                try OAuthToken(tokenResponse: Data(body.utf8), format: format, receivedAt: received)
            }
        }
    }

    @Test("a non-2xx answer is statusCode, so the session-ending rule sees it, whatever the format")
    func rejectedAnswer() {
        let error = #expect(throws: CourierError.self) {
            try OAuthToken(response: Self.response(400, #"{"errorCode":"EXPIRED"}"#), format: .camelCase)
        }
        #expect(error?.response?.statusCode == 400)
        if case .statusCode = error {} else { Issue.record("expected statusCode, got \(String(describing: error))") }
    }
}
