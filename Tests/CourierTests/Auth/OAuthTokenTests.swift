import Courier
import Foundation
import Testing

@Suite("OAuthToken")
struct OAuthTokenTests {
    let received = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("parses an RFC 6749 token response; expires_in counts from receipt, kept as issuedAt")
    func parses() throws {
        let body =
            #"{"access_token":"at-1","token_type":"bearer","expires_in":3600,"refresh_token":"rt-1","scope":"x"}"#
        let token = try OAuthToken(tokenResponse: Data(body.utf8), receivedAt: received)
        #expect(token.accessToken == "at-1")
        #expect(token.refreshToken == "rt-1")
        #expect(token.tokenType == "Bearer")
        #expect(token.issuedAt == received)
        #expect(token.expiresAt == received.addingTimeInterval(3600))
        #expect(token.lifetime == 3600)
    }

    @Test("accepts fractional and string expires_in")
    func expiresInForms() throws {
        let fractional = try OAuthToken(
            tokenResponse: Data(#"{"access_token":"a","expires_in":1.5}"#.utf8), receivedAt: received)
        #expect(fractional.expiresAt == received.addingTimeInterval(1.5))
        let string = try OAuthToken(
            tokenResponse: Data(#"{"access_token":"a","expires_in":"60"}"#.utf8), receivedAt: received)
        #expect(string.expiresAt == received.addingTimeInterval(60))
    }

    @Test("without expires_in, a JWT's exp is used; an opaque token never expires")
    func jwtAndNoExpiry() throws {
        func base64URL(_ string: String) -> String {
            Data(string.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let jwt = base64URL(#"{"alg":"none"}"#) + "." + base64URL(#"{"sub":"ada","exp":1700000123}"#) + ".sig"
        let token = try OAuthToken(tokenResponse: Data(#"{"access_token":"\#(jwt)"}"#.utf8), receivedAt: received)
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_700_000_123))

        let opaque = try OAuthToken(tokenResponse: Data(#"{"access_token":"opaque"}"#.utf8), receivedAt: received)
        #expect(opaque.expiresAt == nil)
        #expect(!opaque.expires(within: 1_000_000, now: received))
        #expect(opaque.tokenType == "Bearer")
    }

    @Test(
        "anything that is not a token response is invalidTokenResponse",
        arguments: [
            "", "not json", "[]", #"{"token_type":"Bearer"}"#, #"{"access_token":""}"#, #"{"access_token":42}"#,
            #"{"access_token": "x""#,
        ])
    func invalid(body: String) {
        #expect(throws: AuthenticationError.self) {
            try OAuthToken(tokenResponse: Data(body.utf8), receivedAt: received)
        }
    }

    @Test("expires(within:now:) compares the remaining time with the interval")
    func expiresWithin() {
        let token = OAuthToken(accessToken: "a", expiresAt: received.addingTimeInterval(100))
        #expect(!token.expires(within: 60, now: received))
        #expect(token.expires(within: 60, now: received.addingTimeInterval(41)))
        #expect(token.expires(within: 0, now: received.addingTimeInterval(100)))
    }

    @Test("its description never shows the tokens")
    func description() {
        let token = OAuthToken(accessToken: "at-SECRET", refreshToken: "rt-SECRET", expiresAt: received)
        for text in [token.description, token.debugDescription, "\(token)", String(reflecting: token)] {
            #expect(!text.contains("at-SECRET"))
            #expect(!text.contains("rt-SECRET"))
        }
        #expect(token.description.contains("refresh token present"))
    }

    @Test("a token endpoint Response: non-2xx is statusCode, a bad body is invalidTokenResponse")
    func fromResponse() throws {
        let ok = Response(statusCode: 200, data: Data(#"{"access_token":"a","refresh_token":"r"}"#.utf8))
        #expect(try OAuthToken(response: ok, receivedAt: received).refreshToken == "r")
        #expect {
            try OAuthToken(response: Response(statusCode: 400, data: Data(#"{"error":"invalid_grant"}"#.utf8)))
        } throws: { error in
            if case .statusCode(let response) = error as? CourierError { return response.statusCode == 400 }
            return false
        }
        #expect {
            try OAuthToken(response: Response(statusCode: 200, data: Data("{}".utf8)))
        } throws: { error in
            if case .authentication(.invalidTokenResponse) = error as? CourierError { return true }
            return false
        }
    }
}
