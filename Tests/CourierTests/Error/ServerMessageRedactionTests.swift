import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A server's error message keeps its words and loses its secrets")
struct ServerMessageRedactionTests {
    private static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ"

    /// The description of a 401 whose body is `body`, for a request carrying `token`.
    private func rejection(
        _ body: String, token: String = "tok-1", formBody: String? = nil, status: Int = 401
    ) -> String {
        var request = URLRequest(url: URL(string: "https://api.example.com/me")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let formBody {
            request.httpMethod = "POST"
            request.httpBody = Data(formBody.utf8)
        }
        let response = Response(statusCode: status, data: Data(body.utf8), request: request)
        return CourierError.statusCode(response).description
    }

    @Test("an OAuth error_description is quoted as the server wrote it")
    func oauthDescriptionIsKept() {
        #expect(
            rejection(#"{"error":"invalid_token","error_description":"The access token has expired."}"#)
                == "GET https://api.example.com/me got status 401 (unauthorized), which was not accepted. The server says: invalid_token: The access token has expired."
        )
        #expect(
            rejection(#"{"error":"invalid_token","error_description":"Invalid token: the signature does not match"}"#)
                .hasSuffix("The server says: invalid_token: Invalid token: the signature does not match."))
        #expect(
            rejection(#"{"title":"Session expired","detail":"Session: please sign in again."}"#)
                .hasSuffix("The server says: Session expired: Session: please sign in again."))
        #expect(
            rejection(#"{"error":"invalid_client","error_description":"Basic authentication is required."}"#)
                .hasSuffix("The server says: invalid_client: Basic authentication is required."))
    }

    @Test("a token the server echoes is hidden: a JWT, the request's own token, a long random run")
    func echoedTokensAreHidden() {
        let echoedJWT = rejection(#"{"error":"invalid_token","error_description":"Token \#(Self.jwt) has expired."}"#)
        #expect(echoedJWT.hasSuffix("The server says: invalid_token: Token <redacted> has expired."))
        #expect(!echoedJWT.contains("eyJ"))

        let own = rejection(
            #"{"error":"invalid_token","error_description":"The token tok-SECRET-7 was revoked."}"#,
            token: "tok-SECRET-7")
        #expect(own.hasSuffix("The token <redacted> was revoked."))

        for token in [
            "9f86d081884c7d659a2feaa0c55ad015", "mF_9.B5f-4.1JqM", "3f2a9c1e-8b7d-4e6f-a5c4-1b2d3e4f5a6b",
            "xK9fQ2pL7vB3nR8s", "a7Xq/9Lm+2Bc8Zr1Yt5w==",
        ] {
            let text = rejection(#"{"message":"unknown credential \#(token) given"}"#)
            if token == "mF_9.B5f-4.1JqM" {
                // Short, and too regular to tell from a word: only the request's own is hidden.
                #expect(text.hasSuffix("unknown credential mF_9.B5f-4.1JqM given."), "\(text)")
            } else {
                #expect(text.hasSuffix("The server says: unknown credential <redacted> given."), "\(token): \(text)")
            }
        }
    }

    @Test("the refresh token and password a request sent are hidden when the server echoes them")
    func requestFieldsAreHidden() {
        let refresh = rejection(
            #"{"error":"invalid_grant","error_description":"refresh token r-4321 is revoked"}"#,
            formBody: "grant_type=refresh_token&refresh_token=r-4321", status: 400)
        #expect(refresh.hasSuffix("The server says: invalid_grant: refresh token <redacted> is revoked."))
        let password = rejection(
            #"{"error":"invalid_grant","error_description":"wrong password hunter2 for ada"}"#,
            formBody: "grant_type=password&username=ada&password=hunter2", status: 400)
        #expect(password.hasSuffix("wrong password <redacted> for ada."))

        var basic = URLRequest(url: URL(string: "https://auth.example.com/oauth/token")!)
        basic.setValue(
            "Basic " + Data("app:s3cr3t-client".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        let redaction = Redaction.default
        #expect(
            redaction.redact(serverMessage: "client secret s3cr3t-client is wrong", sentWith: basic)
                == "client secret <redacted> is wrong")
    }

    @Test("credentials, secret fields and URLs in a message are hidden; prose around them is not")
    func pairsAndURLs() {
        let redaction = Redaction.default
        let cases: [(String, String)] = [
            ("send Bearer abc.def or Basic dXNlcjpwYXNz", "send Bearer <redacted> or Basic <redacted>"),
            (#"header: Bearer error="invalid_token""#, #"header: Bearer error="invalid_token""#),
            ("got access_token=abc and id_token=x1", "got access_token=<redacted> and id_token=<redacted>"),
            (
                #"echo {"refresh_token": "r-1", "scope": "read"}"#,
                #"echo {"refresh_token": "<redacted>", "scope": "read"}"#
            ),
            (
                "see https://docs.example.com/v2/errors#invalid_token.",
                "see https://docs.example.com/v2/errors#invalid_token."
            ),
            (
                "retry https://ada:pw@h.test/a?access_token=abc&page=2",
                "retry https://ada:<redacted>@h.test/a?access_token=<redacted>&page=2"
            ),
            ("open https://h.test/reset/\(Self.jwt)/x", "open https://h.test/reset/<redacted>/x"),
            (
                "InvalidRefreshTokenException at internationalization",
                "InvalidRefreshTokenException at internationalization"
            ),
            ("request 42 failed; token: missing", "request 42 failed; token: missing"),
        ]
        for (message, expected) in cases {
            #expect(redaction.redact(serverMessage: message, sentWith: nil) == expected)
        }
    }

    @Test("a huge message is read only as far as a description can quote it, and still redacted")
    func hugeMessage() {
        let filler = String(repeating: "very ", count: 200_000)
        let text = rejection(#"{"error":"invalid_token","error_description":"Token \#(Self.jwt) is \#(filler)old"}"#)
        #expect(text.contains("The server says: invalid_token: Token <redacted> is very very"))
        #expect(text.hasSuffix("… (cut)."))
        #expect(text.count < 500)
    }

    @Test("Redaction.none hides nothing; a short own token hides no ordinary word")
    func noRedaction() {
        let message = "Token \(Self.jwt) (Bearer abc123) is bad"
        #expect(Redaction.none.redact(serverMessage: message, sentWith: nil) == message)
        var request = URLRequest(url: URL(string: "https://api.example.com/me")!)
        request.setValue("Bearer the", forHTTPHeaderField: "Authorization")
        #expect(
            Redaction.default.redact(serverMessage: "the token has expired", sentWith: request)
                == "the token has expired")
        request.setValue("Bearer expired", forHTTPHeaderField: "Authorization")
        #expect(
            Redaction.default.redact(serverMessage: "the token has expired", sentWith: request)
                == "the token has <redacted>", "a token of four characters or more is hidden as a whole word")
    }
}
