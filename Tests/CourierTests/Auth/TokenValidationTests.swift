import Courier
import Foundation
import Testing

/// The bounds a token must keep to be sendable, wherever it comes from.
@Suite("Token validation")
struct TokenValidationTests {
    static let limit = OAuthToken.maximumTokenLength
    static let received = Date(timeIntervalSince1970: 1_700_000_000)

    func problem(_ token: OAuthToken) -> TokenValidationError? {
        do throws(TokenValidationError) {
            try token.validate()
            return nil
        } catch {
            return error
        }
    }

    @Test("16 KiB of token is accepted, one byte more is not; bytes are counted, not characters")
    func tokenLength() {
        #expect(Self.limit == 16_384)
        #expect(problem(OAuthToken(accessToken: String(repeating: "a", count: Self.limit))) == nil)
        #expect(
            problem(OAuthToken(accessToken: String(repeating: "a", count: Self.limit + 1)))
                == TokenValidationError(
                    field: .accessToken, problem: .tooLong(length: Self.limit + 1, limit: Self.limit)))
        #expect(
            problem(OAuthToken(accessToken: String(repeating: "é", count: Self.limit / 2 + 1)))
                == TokenValidationError(
                    field: .accessToken, problem: .tooLong(length: Self.limit + 2, limit: Self.limit)))
        #expect(
            problem(OAuthToken(accessToken: "a", refreshToken: String(repeating: "r", count: Self.limit + 1)))
                == TokenValidationError(
                    field: .refreshToken, problem: .tooLong(length: Self.limit + 1, limit: Self.limit)))
        #expect(problem(OAuthToken(accessToken: "a", refreshToken: String(repeating: "r", count: Self.limit))) == nil)
        #expect(problem(OAuthToken(accessToken: "a", refreshToken: nil)) == nil)
    }

    @Test("an empty access token, a control character, and a token type that is no short HTTP token are refused")
    func content() {
        #expect(problem(OAuthToken(accessToken: "")) == TokenValidationError(field: .accessToken, problem: .empty))
        for (text, scalar) in [
            ("a\r\nX: 1", "\r"), ("a\nb", "\n"), ("a\u{0}", "\u{0}"), ("a\tb", "\t"), ("a\u{7F}", "\u{7F}"),
        ]
            as [(String, Unicode.Scalar)]
        {
            #expect(
                problem(OAuthToken(accessToken: text))
                    == TokenValidationError(field: .accessToken, problem: .controlCharacter(scalar)))
        }
        #expect(
            problem(OAuthToken(accessToken: "a", tokenType: ""))
                == TokenValidationError(field: .tokenType, problem: .empty))
        #expect(
            problem(OAuthToken(accessToken: "a", tokenType: "Be arer"))
                == TokenValidationError(field: .tokenType, problem: .notAToken(" ")))
        #expect(
            problem(OAuthToken(accessToken: "a", tokenType: String(repeating: "B", count: 65)))
                == TokenValidationError(field: .tokenType, problem: .tooLong(length: 65, limit: 64)))
        for type in ["Bearer", "DPoP", "MAC", "N_A", "SCRAM-SHA-256"] {
            #expect(problem(OAuthToken(accessToken: "a.b-c_d~e+f/g=", tokenType: type)) == nil, "\(type)")
        }
    }

    @Test("the error names the field and its size, never its value")
    func description() throws {
        let huge = OAuthToken(accessToken: "at-SECRET-" + String(repeating: "x", count: 1 << 20))
        let error = try #require(problem(huge))
        #expect(
            error.description == "the access_token is 1048586 bytes long, more than the 16384 bytes a token may have")
        let control = try #require(problem(OAuthToken(accessToken: "SECRET\r\n")))
        #expect(
            control.description == "the access_token holds the control character U+000D, which cannot go into a header")
        for text in [error.description, control.description, String(reflecting: error)] {
            #expect(!text.contains("SECRET"))
        }
    }

    @Test("a token response with a 1 MB field is refused; OAuthToken(response:) says which field and its size")
    func tokenResponses() throws {
        let huge = String(repeating: "x", count: 1 << 20)
        let cases: [(String, TokenValidationError)] = [
            (
                #"{"access_token":"\#(huge)","refresh_token":"rotated"}"#,
                TokenValidationError(field: .accessToken, problem: .tooLong(length: 1 << 20, limit: Self.limit))
            ),
            (
                #"{"access_token":"a","refresh_token":"\#(huge)"}"#,
                TokenValidationError(field: .refreshToken, problem: .tooLong(length: 1 << 20, limit: Self.limit))
            ),
            (
                #"{"access_token":"a","token_type":"\#(String(repeating: "B", count: 100))"}"#,
                TokenValidationError(field: .tokenType, problem: .tooLong(length: 100, limit: 64))
            ),
        ]
        for (body, expected) in cases {
            #expect {
                try OAuthToken(tokenResponse: Data(body.utf8), receivedAt: Self.received)
            } throws: { error in
                guard case .invalidTokenResponse = error as? AuthenticationError else { return false }
                return true
            }
            let response = Response(statusCode: 200, data: Data(body.utf8))
            #expect {
                try OAuthToken(response: response, receivedAt: Self.received)
            } throws: { error in
                guard case .objectMapping(let problem as TokenValidationError, _) = error as? CourierError else {
                    return false
                }
                let description = "\(error)"
                return problem == expected && description.contains(expected.description)
                    && !description.contains(String(repeating: "x", count: 100))
            }
        }
        // Right at the bound, a token response is still a token.
        let atLimit = try OAuthToken(
            tokenResponse: Data(#"{"access_token":"\#(String(repeating: "a", count: Self.limit))"}"#.utf8),
            receivedAt: Self.received)
        #expect(atLimit.accessToken.utf8.count == Self.limit)
    }
}
