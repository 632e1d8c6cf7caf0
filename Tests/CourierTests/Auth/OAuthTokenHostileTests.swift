import Courier
import Foundation
import Testing

/// Token responses a hostile or broken server may send: the token must never hold a NaN or
/// infinite expiry, never look expired on arrival, and describing it must never trap.
@Suite("OAuthToken with hostile lifetimes")
struct OAuthTokenHostileTests {
    let received = Date(timeIntervalSince1970: 1_700_000_000)

    private func token(expiresIn json: String) throws -> OAuthToken {
        try OAuthToken(
            tokenResponse: Data(
                #"{"access_token":"AT-SECRET","refresh_token":"RT-SECRET","expires_in":\#(json)}"#.utf8),
            receivedAt: received)
    }

    @Test(
        "an unusable expires_in, as a number or a string, counts as unknown: no expiry, used until rejected",
        arguments: [
            #""nan""#, #""NaN""#, #""inf""#, #""-inf""#, #""infinity""#, #""1e309""#, #""-1e309""#, "1e309", "-1e309",
            "0", "-1", "-3600", #""0""#, #""-5""#, "0.0", "-0.0", #""""#, #""soon""#, "null", "[]", "{}",
            "1e300", #""1e300""#, "9.9e307", "4e9",
        ])
    func unusableLifetime(json: String) throws {
        let parsed = try token(expiresIn: json)
        #expect(parsed.expiresAt == nil, "expires_in \(json)")
        #expect(parsed.lifetime == nil)
        #expect(!parsed.expires(within: 60, now: received))
        #expect(!parsed.expires(within: 60, now: .distantFuture))
        #expect(parsed.description.contains("never expires"))
        #expect(!parsed.description.contains("SECRET"))
    }

    @Test(
        "numbers and strings holding the same lifetime give the same token",
        arguments: ["1", "1.5", "60", "3600", "86400", "3153600000"])
    func numberAndStringAgree(seconds: String) throws {
        let number = try token(expiresIn: seconds)
        let string = try token(expiresIn: "\"\(seconds)\"")
        let padded = try token(expiresIn: "\" \(seconds) \"")
        #expect(number == string)
        #expect(number == padded)
        #expect(number.expiresAt == received.addingTimeInterval(Double(seconds)!))
    }

    @Test(
        "expires_in kept only from a JSON number or a decimal-digit string giving at least a second",
        arguments: [
            "1e-300", "0.5", "0.999", "1e-1", "true", "false", #""true""#, #""0x10""#, #""0X10""#, #""1e3""#,
            #""+60""#, #""-60""#, #""60s""#, #""6 0""#, #"".5""#, #""5.""#, #""1.2.3""#, #""0.9""#, #""١٢""#,
            #""٣٦٠٠""#, #""0b101""#, #""0o17""#, #""3_600""#, #""0x1p4""#,
        ])
    func noExpiryFromNonDecimalOrSubSecond(json: String) throws {
        let parsed = try token(expiresIn: json)
        #expect(parsed.expiresAt == nil, "expires_in \(json) must keep no expiry")
        #expect(parsed.lifetime == nil)
        #expect(!parsed.expires(within: 0, now: received), "expires_in \(json): not expired on arrival")
    }

    @Test(
        "the shortest lifetime kept is a second, from a number or from decimal digits",
        arguments: [("1", 1.0), (#""1""#, 1), ("1.0", 1), (#""3600.5""#, 3600.5), (#"" 0042 ""#, 42), ("59.5", 59.5)])
    func shortestKeptLifetime(json: String, seconds: Double) throws {
        let parsed = try token(expiresIn: json)
        #expect(parsed.lifetime == seconds, "expires_in \(json)")
        #expect(OAuthToken.minimumLifetime == 1)
    }

    @Test("the longest lifetime taken at its word is maximumLifetime; a longer one is unknown")
    func maximumLifetime() throws {
        let longest = try token(expiresIn: String(Int(OAuthToken.maximumLifetime)))
        #expect(longest.lifetime == OAuthToken.maximumLifetime)
        let longer = try token(expiresIn: String(Int(OAuthToken.maximumLifetime) + 1))
        #expect(longer.expiresAt == nil)
    }

    @Test(
        "a JWT exp that is not finite, not after receipt (clock skew) or absurdly far counts as unknown",
        arguments: ["1e309", "-1e309", "1699999999", "1700000000", "0", "-5", "1e300", #""1700000100""#])
    func jwtExpiry(exp: String) throws {
        let jwt = Self.jwt(#"{"sub":"ada","exp":\#(exp)}"#)
        let parsed = try OAuthToken(tokenResponse: Data(#"{"access_token":"\#(jwt)"}"#.utf8), receivedAt: received)
        #expect(parsed.expiresAt == nil, "exp \(exp)")
        _ = parsed.description
    }

    @Test("a usable JWT exp is the expiry, and an unusable expires_in falls back to it")
    func jwtFallback() throws {
        let jwt = Self.jwt(#"{"exp":1700000100}"#)
        for expiresIn in [#""nan""#, "0", "-1"] {
            let parsed = try OAuthToken(
                tokenResponse: Data(#"{"access_token":"\#(jwt)","expires_in":\#(expiresIn)}"#.utf8),
                receivedAt: received)
            #expect(parsed.expiresAt == Date(timeIntervalSince1970: 1_700_000_100))
            #expect(parsed.lifetime == 100)
        }
    }

    @Test(
        "describing a hand-built token with any expiry never traps and never shows a token",
        arguments: [
            Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e300,
            0, 1_700_000_000, 253_402_300_799, 253_402_300_800, -62_135_596_800, -62_135_596_801,
        ])
    func describing(secondsSince1970: Double) {
        let date = Date(timeIntervalSince1970: secondsSince1970)
        let token = OAuthToken(
            accessToken: "SECRET-AT", refreshToken: "SECRET-RT", expiresAt: date, issuedAt: date)
        for text in [token.description, token.debugDescription, String(describing: token), "\(token)"] {
            #expect(text.hasPrefix("OAuthToken(Bearer, "))
            #expect(!text.contains("SECRET"))
        }
        if !secondsSince1970.isFinite {
            #expect(!token.expires(within: 0, now: Date()), "a NaN or infinite expiry is unknown, not expired")
            #expect(token.lifetime == nil)
        }
    }

    @Test(
        "an access token with a control character or a token_type that is no HTTP token is refused",
        arguments: [
            #"{"access_token":"abc\r\nX-Injected: 1"}"#, #"{"access_token":"abc\u0000"}"#,
            #"{"access_token":"a\tb"}"#, #"{"access_token":"abc","token_type":"Bearer\r\nX: 1"}"#,
            #"{"access_token":"abc","token_type":"Be arer"}"#, #"{"access_token":"abc","token_type":""}"#,
        ])
    func headerBreakingToken(body: String) {
        #expect {
            try OAuthToken(tokenResponse: Data(body.utf8), receivedAt: received)
        } throws: { error in
            guard case .invalidTokenResponse = error as? AuthenticationError else { return false }
            return true
        }
    }

    static func jwt(_ claims: String) -> String {
        func base64URL(_ string: String) -> String {
            Data(string.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return base64URL(#"{"alg":"none"}"#) + "." + base64URL(claims) + ".sig"
    }
}
