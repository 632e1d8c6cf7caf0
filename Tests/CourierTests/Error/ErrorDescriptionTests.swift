import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("CourierError descriptions a developer can debug with")
struct ErrorDescriptionTests {
    private func failure(
        _ target: ErrorTestTarget, reply: ScriptedTransport.Reply
    ) async -> CourierError? {
        let transport = ScriptedTransport()
        transport.always(reply, for: .any)
        let provider = Provider<ErrorTestTarget>.scripted(transport)
        do {
            _ = try await provider.request(target)
            return nil
        } catch {
            return error
        }
    }

    @Test("a wrong password: the token endpoint's OAuth error, the accepted range, no password")
    func oauthError() async throws {
        let target = ErrorTestTarget(
            baseURL: URL(string: "https://auth.example.com")!, path: "oauth/token", method: .post,
            task: .requestParameters(
                parameters: ["grant_type": "password", "username": "ada", "password": "hunter2"],
                encoding: URLEncoding.httpBody))
        let error = try #require(
            await failure(
                target,
                reply: .json(
                    #"{"error":"invalid_grant","error_description":"The user name or password is wrong."}"#,
                    statusCode: 400)))
        #expect(
            error.description
                == "POST https://auth.example.com/oauth/token got status 400 (bad request), not in the accepted range 2xx. The server says: invalid_grant: The user name or password is wrong."
        )
        #expect(error.localizedDescription == error.description)
        #expect(!error.description.contains("hunter2"))
    }

    @Test("custom accepted codes are listed, and a message field is quoted")
    func customCodes() async throws {
        let error = try #require(
            await failure(
                ErrorTestTarget(path: "items/7", validationType: .customCodes([200, 304])),
                reply: .json(#"{"message":"Item 7 is archived"}"#, statusCode: 410)))
        #expect(
            error.description
                == "GET https://api.example.com/v1/items/7 got status 410 (gone), not in the accepted range 200 or 304. The server says: Item 7 is archived."
        )
    }

    @Test("a body without a reason field is quoted in short, secrets redacted")
    func bodyExcerpt() async throws {
        let error = try #require(
            await failure(
                ErrorTestTarget(path: "session"),
                reply: .text("upstream said no; access_token=tok-SECRET retry later", statusCode: 502)))
        #expect(
            error.description
                == "GET https://api.example.com/v1/session got status 502 (bad gateway), not in the accepted range 2xx. The body is upstream said no; access_token=<redacted> retry later."
        )
        let long = try #require(
            await failure(ErrorTestTarget(), reply: .text(String(repeating: "x", count: 300), statusCode: 500)))
        #expect(
            long.description.hasSuffix(
                "The body is " + String(repeating: "x", count: 200) + "… (cut, 300 bytes in all)."))
    }

    @Test("Response.filter names the range it wanted")
    func filterRange() throws {
        let response = Response(
            statusCode: 302, data: Data(),
            request: URLRequest(url: URL(string: "https://api.example.com/v1/a?token=T0K&page=2")!))
        #expect(throws: CourierError.self) { try response.filterSuccessfulStatusCodes() }
        do {
            _ = try response.filterSuccessfulStatusCodes()
        } catch {
            #expect(
                error.description
                    == "GET https://api.example.com/v1/a?token=<redacted>&page=2 got status 302 (found), not in the accepted range 2xx."
            )
        }
        do {
            _ = try response.filter(statusCodes: 200..<204)
        } catch {
            #expect(error.description.contains("not in the accepted range 200–203."))
        }
    }

    @Test("a refused connection names the host and port, the URL's token redacted", .timeLimit(.minutes(20)))
    func refusedConnection() async throws {
        let closed = try RefusingPort()
        let target = ErrorTestTarget(
            baseURL: URL(string: "http://127.0.0.1:\(closed.port)/v1")!, path: "zen",
            task: .requestParameters(parameters: ["access_token": "tok-SECRET"], encoding: URLEncoding.queryString))
        let provider = Provider<ErrorTestTarget>()
        do {
            _ = try await provider.request(target)
            Issue.record("a request to a closed port succeeded")
        } catch {
            #expect(
                error.description
                    == "GET http://127.0.0.1:\(closed.port)/v1/zen?access_token=<redacted> failed: could not connect to 127.0.0.1:\(closed.port) (URLError -1004)."
            )
            // Still a URLError underneath, so a RetryPolicy decides as before.
            #expect((error.underlyingError as? URLError)?.code == .cannotConnectToHost)
            #expect((error.underlyingError as? URLError)?.failingURL?.port == closed.port)
        }
    }

    @Test("a transport error keeps its code and a failing URL the transport gave; a cancellation stays one")
    func transportErrorsKeepTheirMeaning() async throws {
        let redirected = URL(string: "https://cdn.example.com/items")!
        let kept = try #require(
            await failure(
                ErrorTestTarget(method: .put),
                reply: .failure(URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: redirected])))
        )
        let underlying = try #require(kept.underlyingError as? URLError)
        #expect(underlying.code == .networkConnectionLost)
        #expect(underlying.failingURL == redirected)
        #expect(
            kept.description
                == "PUT https://cdn.example.com/items failed: the connection to cdn.example.com:443 was lost before the response was complete (URLError -1005)."
        )

        let cancelled = try #require(await failure(ErrorTestTarget(), reply: .failure(URLError(.cancelled))))
        #expect(cancelled.isCancelled)
    }

    @Test("a decoding error names the type, the coding path, the content type and the body")
    func decoding() throws {
        struct User: Decodable {
            struct Profile: Decodable { let email: String }
            let id: Int
            let profiles: [Profile]
        }
        let response = Response(
            statusCode: 200, data: Data(#"{"id":1,"profiles":[{"email":"a@x"},{"mail":"b@x"}],"password":"pw"}"#.utf8),
            request: URLRequest(url: URL(string: "https://api.example.com/v1/users/1")!),
            response: HTTPURLResponse(
                url: URL(string: "https://api.example.com/v1/users/1")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"]))
        #expect(throws: CourierError.self) { try response.map(User.self) }
        do {
            _ = try response.map(User.self)
        } catch {
            #expect(
                error.description
                    == #"Could not decode User from the response to GET https://api.example.com/v1/users/1 (status 200, application/json): the key "email" is missing at profiles[1]. The body is {"id":1,"profiles":[{"email":"a@x"},{"mail":"b@x"}],"password":"<redacted>"}."#
            )
        }
        do {
            _ = try response.map(Int.self, atKeyPath: "id.missing")
        } catch {
            #expect(
                error.description
                    == #"Could not decode Int from the response to GET https://api.example.com/v1/users/1 (status 200, application/json): no value at key path "id.missing". The body is {"id":1,"profiles":[{"email":"a@x"},{"mail":"b@x"}],"password":"<redacted>"}."#
            )
        }
    }

    @Test("mapping errors say what the body was")
    func mapping() throws {
        let response = Response(
            statusCode: 200, data: Data("<html>hi</html>".utf8),
            request: URLRequest(url: URL(string: "https://api.example.com/v1/page")!))
        do {
            _ = try response.mapJSON()
        } catch {
            #expect(
                error.description
                    == "GET https://api.example.com/v1/page got status 200 with a body that is not JSON (no Content-Type): <html>hi</html>."
            )
        }
        let binary = Response(statusCode: 200, data: Data([0xFF, 0xFE, 0x00]))
        do {
            _ = try binary.mapString()
        } catch {
            #expect(
                error.description
                    == "The request got status 200 with a body that is not UTF-8 text or has no string at the key path (no Content-Type): 3 bytes of binary data."
            )
        }
    }

    @Test("nested descriptions join cleanly: never a doubled full stop")
    func nesting() {
        struct Sentence: Error, CustomStringConvertible {
            var description: String { "The disk is full." }
        }
        let status = CourierError.statusCode(
            Response(
                statusCode: 503, data: Data(#"{"detail":"Down for maintenance."}"#.utf8),
                request: URLRequest(url: URL(string: "https://auth.example.com/token")!)))
        let errors: [CourierError] = [
            .authentication(.refreshFailed(status)),
            .authentication(.refreshFailed(URLError(.timedOut))),
            .authentication(.storeUnavailable(TokenStoreError.readFailed("permission denied."))),
            .authentication(.refreshFailed(RefreshTimeout(seconds: 30))),
            .underlying(Sentence(), nil),
            .underlying(Sentence(), Response(statusCode: 200, data: Data())),
            .encodableMapping(Sentence()),
            .parameterEncoding(ParameterEncodingFailure.invalidQuery),
            .requestMapping("not a url."),
        ]
        for error in errors {
            #expect(!error.description.contains(".."), "\(error.description)")
            #expect(error.description.hasSuffix("."), "\(error.description)")
        }
        #expect(
            errors[0].description
                == "Authentication failed: refreshing the access token failed: GET https://auth.example.com/token got status 503 (service unavailable), which was not accepted. The server says: Down for maintenance."
        )
        #expect(
            errors[1].description
                == "Authentication failed: refreshing the access token failed: timed out waiting for the server (URLError -1001)."
        )
        #expect(
            errors[2].description
                == "Authentication failed: the stored token cannot be read: reading the stored token failed: permission denied."
        )
        #expect(errors[5].description == "The request got status 200, then failed: the disk is full.")
    }

    @Test("every public error type reads well through localizedDescription")
    func localizedDescriptions() {
        let errors: [(any Error, String)] = [
            (CourierError.cancelled, "The request was cancelled."),
            (AuthenticationError.sessionExpired, "The session has expired; the user must sign in again."),
            (
                TokenStoreError.corrupt(URL(fileURLWithPath: "/tmp/token.json")),
                "The token file /tmp/token.json is not a valid token; it was left untouched (sign in again to replace it)."
            ),
            (TokenStoreError.writeFailed("disk full"), "Writing the token failed: disk full."),
            (RefreshTimeout(seconds: 5), "The token refresh did not finish within 5.0 seconds."),
            (ParameterEncodingFailure.missingURL, "The request has no URL to add the query string to."),
            (
                ParameterEncodingFailure.invalidJSONObject,
                "The parameters contain a value that cannot be written as JSON (only strings, numbers, booleans, null, arrays and dictionaries can)."
            ),
            (
                MultipartEncodingFailure.streamAlreadyRead,
                "A stream part was already read by an earlier attempt and cannot be sent again."
            ),
            (
                ParameterEncodingFailure.bodyEncodingNotInBody,
                "RequestCompositeParameters needs a body encoding that writes the body (URLEncoding.httpBody or JSONEncoding); use urlParameters for the query string."
            ),
            (
                UnscriptedRequestError(
                    request: URLRequest(url: URL(string: "https://api.example.com/a")!), scriptedRoutes: "nothing"),
                "ScriptedTransport has no reply for GET https://api.example.com/a (scripted: nothing)"
            ),
        ]
        for (error, expected) in errors {
            #expect(error.localizedDescription == expected)
        }
    }

    @Test("nothing secret: form password, Authorization and Cookie values, a token in a query or a body")
    func noSecrets() async throws {
        struct Leaky: Error, CustomStringConvertible {
            var description: String {
                #"failed for https://u:pw-SECRET0@x.test/cb?access_token=tok-SECRET1 with {"refresh_token":"rt-SECRET2"} and Bearer tok-SECRET3, X-Api-Key: key-SECRET4"#
            }
        }
        var request = URLRequest(url: URL(string: "https://u:pw-SECRET0@api.example.com/login?token=tok-SECRET1")!)
        request.httpMethod = "POST"
        request.setValue("Bearer tok-SECRET3", forHTTPHeaderField: "Authorization")
        request.setValue("session=ck-SECRET5", forHTTPHeaderField: "Cookie")
        request.httpBody = Data("username=ada&password=pw-SECRET6".utf8)
        let response = Response(
            statusCode: 401,
            data: Data(#"{"error":"invalid_token","access_token":"tok-SECRET1","refresh_token":"rt-SECRET2"}"#.utf8),
            request: request)
        let errors: [CourierError] = [
            .underlying(Leaky(), nil),
            .underlying(Leaky(), response),
            .statusCode(response),
            .jsonMapping(Response(statusCode: 200, data: Data(#"password=pw-SECRET6&x=1"#.utf8), request: request)),
            .requestMapping("https://u:pw-SECRET0@x.test/cb?access_token=tok-SECRET1"),
            .authentication(.refreshFailed(Leaky())),
            .authentication(.refreshFailed(CourierError.statusCode(response))),
            .objectMapping(Leaky(), response),
        ]
        for error in errors {
            for secret in ["SECRET0", "SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6"] {
                #expect(!error.description.contains(secret), "\(error.description)")
                #expect(!error.localizedDescription.contains(secret), "\(error.localizedDescription)")
            }
        }
    }
}
