import Courier
import CourierPlugins
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkLoggerPlugin redaction")
struct RedactionTests {
    /// Every secret the requests and responses below carry. None may appear in any line.
    static let secrets = [
        "SECRET-AUTHORIZATION", "SECRET-PROXY", "SECRET-COOKIE", "SECRET-SET-COOKIE", "SECRET-QUERY-ACCESS",
        "SECRET-QUERY-ID", "SECRET-FRAGMENT", "SECRET-URL-PASSWORD", "SECRET-JSON-PASSWORD", "SECRET-JSON-REFRESH",
        "SECRET-JSON-CLIENT", "SECRET-JSON-ID", "SECRET-JSON-NESTED-ACCESS", "SECRET-FORM-PASSWORD",
        "SECRET-FORM-CLIENT", "SECRET-FORM-REFRESH", "SECRET-FORM-BRACKET", "SECRET-RESPONSE-ACCESS",
        "SECRET-RESPONSE-REFRESH", "SECRET-RESPONSE-ID", "SECRET-RESPONSE-URL", "SECRET-ERROR-ACCESS",
        "SECRET-CAMEL-ACCESS",
    ]

    let transport = ScriptedTransport()
    let lines = Collector<String>()

    @Test("no secret appears in any line for requests and responses that carry every kind of secret")
    func everySecret() async throws {
        transport.always(
            .json(
                #"""
                {"access_token": "SECRET-RESPONSE-ACCESS", "token_type": "Bearer", "expires_in": 3600,
                 "refresh_token": "SECRET-RESPONSE-REFRESH", "id_token": "SECRET-RESPONSE-ID",
                 "next": "https://api.example.com/v1/items?page=2&access_token=SECRET-RESPONSE-URL",
                 "user": {"accessToken": "SECRET-CAMEL-ACCESS", "name": "Ada"}}
                """#,
                headers: [
                    "Set-Cookie": "session=SECRET-SET-COOKIE; Path=/; HttpOnly",
                    "Location": "https://api.example.com/cb#access_token=SECRET-FRAGMENT",
                ]),
            for: .any)
        let everything: NetworkLoggerPlugin.Configuration.LogOptions = .verbose.union(.formatRequestAscURL)
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: everything)])
        let secretHeaders = [
            "Authorization": "Bearer SECRET-AUTHORIZATION",
            "Proxy-Authorization": "Basic SECRET-PROXY",
            "Cookie": "theme=dark; session=SECRET-COOKIE",
        ]

        // JSON body, secret headers and a query string with secrets.
        _ = try await provider.request(
            PluginTestTarget(
                baseURL: URL(string: "https://ada:SECRET-URL-PASSWORD@api.example.com/v1")!,
                path: "login", method: .post,
                task: .requestCompositeParameters(
                    bodyParameters: [
                        "username": "ada", "password": "SECRET-JSON-PASSWORD", "refresh_token": "SECRET-JSON-REFRESH",
                        "client": [
                            "client_secret": "SECRET-JSON-CLIENT", "ids": [["id_token": "SECRET-JSON-ID"]],
                        ] as [String: any Sendable],
                        "tokens": [["access_token": "SECRET-JSON-NESTED-ACCESS"]],
                    ],
                    bodyEncoding: JSONEncoding.default,
                    urlParameters: ["access_token": "SECRET-QUERY-ACCESS", "id_token": "SECRET-QUERY-ID", "page": 1]),
                headers: secretHeaders))

        // A form body, the way a token endpoint is called.
        _ = try await provider.request(
            PluginTestTarget(
                path: "oauth/token", method: .post,
                task: .requestParameters(
                    parameters: [
                        "grant_type": "refresh_token", "password": "SECRET-FORM-PASSWORD",
                        "client_secret": "SECRET-FORM-CLIENT", "refresh_token": "SECRET-FORM-REFRESH",
                        "user": ["password": "SECRET-FORM-BRACKET"],
                    ],
                    encoding: URLEncoding.httpBody),
                headers: secretHeaders))

        // A failure whose description quotes a secret.
        transport.enqueue(
            .failure(LeakyError(url: "https://x.test/?access_token=SECRET-ERROR-ACCESS")), for: .get("/leak"))
        await #expect(throws: CourierError.self) { try await provider.request(PluginTestTarget(path: "leak")) }

        let log = lines.all.joined(separator: "\n")
        for secret in Self.secrets {
            #expect(!log.contains(secret), "\(secret) leaked into the log:\n\(log)")
        }
        // Redacted, not dropped: the lines still say what was there.
        #expect(log.contains(#""Authorization": "<redacted>""#))
        #expect(log.contains(#""Set-Cookie": "<redacted>""#))
        #expect(log.contains("access_token=<redacted>&id_token=<redacted>&page=1"))
        #expect(log.contains(#""password":"<redacted>""#))
        #expect(log.contains("grant_type=refresh_token"))
        #expect(log.contains(#""name": "Ada""#))
        #expect(log.contains("-H 'Authorization: <redacted>'"))
        #expect(log.contains("https://ada:<redacted>@api.example.com/v1/login"))
        #expect(lines.all.filter { $0.hasPrefix("cURL: ") }.count == 3)
    }

    @Test("the redaction list is configurable")
    func configurable() async throws {
        transport.always(.json(#"{"otp":"123456","password":"hunter2"}"#), for: .any)
        let redaction = NetworkLoggerPlugin.Redaction(headers: ["X-Api-Key"], keys: ["otp"], headerNameFragments: [])
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: .verbose, redaction: redaction)])

        _ = try await provider.request(
            PluginTestTarget(headers: ["X-Api-Key": "k-123", "Authorization": "Bearer visible"]))

        let log = lines.all.joined(separator: "\n")
        #expect(!log.contains("k-123"))
        #expect(!log.contains("123456"))
        // Only what the list names is hidden; free-text credentials still are.
        #expect(log.contains("hunter2"))
        #expect(log.contains(#""Authorization": "Bearer <redacted>""#))
    }

    @Test("Redaction.none hides nothing, for local debugging")
    func none() {
        let none = NetworkLoggerPlugin.Redaction.none
        #expect(none.redact(headers: ["Authorization": "Bearer t"]) == ["Authorization": "Bearer t"])
        #expect(none.redact(text: "access_token=t") == "access_token=t")
        #expect(none.redact(urlString: "https://u:p@h/?password=x") == "https://u:p@h/?password=x")
    }

    @Test("field names match without regard to case, underscores, dashes or brackets")
    func nameMatching() {
        let redaction = NetworkLoggerPlugin.Redaction.default
        for name in ["access_token", "accessToken", "ACCESS-TOKEN", "user[password]", "clientSecret", "Cookie"] {
            #expect(redaction.isSecret(key: name), "\(name)")
        }
        for name in ["token_type", "username", "expires_in", "passwordHint"] {
            #expect(!redaction.isSecret(key: name), "\(name)")
        }
    }

    @Test("JSON is redacted at any depth and left byte-for-byte alone when it holds no secret")
    func json() throws {
        let redaction = NetworkLoggerPlugin.Redaction.default
        let clean = Data(#"{ "b": [1, 2], "a": "x" }"#.utf8)
        #expect(redaction.redact(body: clean, contentType: "application/json") == clean)

        let nested = Data(#"[{"a":{"b":[{"refresh_token":{"deep":"SECRET"}}]},"n":null,"t":true}]"#.utf8)
        let redacted = String(decoding: redaction.redact(body: nested, contentType: nil), as: UTF8.self)
        #expect(redacted == #"[{"a":{"b":[{"refresh_token":"<redacted>"}]},"n":null,"t":true}]"#)
    }

    @Test("form bodies, query strings and fragments keep every other field as it was")
    func form() {
        let redaction = NetworkLoggerPlugin.Redaction.default
        #expect(
            redaction.redact(form: "grant_type=password&username=ada%20l&password=p%26ss&user%5Bpassword%5D=x&flag")
                == "grant_type=password&username=ada%20l&password=<redacted>&user%5Bpassword%5D=<redacted>&flag")
        // An authorization code is a secret in a query (issue 35); `state` is not.
        #expect(
            redaction.redact(urlString: "https://h.test/cb?state=s&code=c#access_token=T&token_type=Bearer")
                == "https://h.test/cb?state=s&code=<redacted>#access_token=<redacted>&token_type=Bearer")
    }

    @Test("free text: pairs, quoted pairs, header lines and credentials")
    func text() {
        let redaction = NetworkLoggerPlugin.Redaction.default
        #expect(redaction.redact(text: "failed: password=abc, retry") == "failed: password=<redacted>, retry")
        #expect(
            redaction.redact(text: #"{"password" : "a \"quoted\" one", "ok": 1"#)
                == #"{"password" : "<redacted>", "ok": 1"#)
        #expect(redaction.redact(text: "id_token: abc def") == "id_token: <redacted> def")
        #expect(
            redaction.redact(text: "GET /\nCookie: a=1; b=2\nAccept: */*") == "GET /\nCookie: <redacted>\nAccept: */*")
        #expect(redaction.redact(text: "sent Bearer abc.def-ghi_= to x") == "sent Bearer <redacted> to x")
        #expect(redaction.redact(text: "basic  dXNlcjpwYXNz") == "basic  <redacted>")
        // An auth parameter is not a credential.
        #expect(redaction.redact(text: #"Basic realm="courier""#) == #"Basic realm="courier""#)
        #expect(redaction.redact(text: "nothing to hide: a=1") == "nothing to hide: a=1")
    }

    @Test("response headers: secret ones replaced, tokens in the others hidden")
    func headers() {
        let redaction = NetworkLoggerPlugin.Redaction.default
        #expect(
            redaction.redact(headers: [
                "set-cookie": "a=1", "Location": "https://h/?refresh_token=r&x=1", "Content-Type": "text/plain",
            ]) == [
                "set-cookie": "<redacted>", "Location": "https://h/?refresh_token=<redacted>&x=1",
                "Content-Type": "text/plain",
            ])
    }

    @Test("adding(headers:keys:) extends the default list")
    func adding() {
        let redaction = NetworkLoggerPlugin.Redaction.default.adding(headers: ["X-Api-Key"], keys: ["pin"])
        #expect(redaction.isSecret(header: "x-api-key"))
        #expect(redaction.isSecret(header: "Authorization"))
        #expect(redaction.isSecret(key: "PIN"))
        #expect(redaction.isSecret(key: "password"))
        #expect(redaction != .default)
    }
}

/// An error whose description quotes a URL with a token, as some Foundation errors do.
struct LeakyError: Error, CustomStringConvertible {
    let url: String
    var description: String { "could not load \(url)" }
}
