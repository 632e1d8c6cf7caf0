import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Redaction: one list for error descriptions and the logger")
struct RedactionTests {
    @Test("headers whose names suggest a credential are secret by default, in any case")
    func credentialHeaderNames() {
        let redaction = Redaction.default
        for name in [
            "Authorization", "Proxy-Authorization", "Cookie", "set-cookie", "Access-Token", "X-Api-Key",
            "X-AUTH-TOKEN", "X-Session-Id", "X-Client-Secret", "X-Password", "X-Amz-Signature", "apikey",
        ] {
            #expect(redaction.isSecret(header: name), "\(name)")
        }
        for name in [
            "Accept", "Content-Type", "Keep-Alive", "Location", "WWW-Authenticate", "Proxy-Authenticate", "ETag",
        ] {
            #expect(!redaction.isSecret(header: name), "\(name)")
        }
        #expect(
            redaction.redact(headers: ["X-Api-Key": "k", "X-Request-Id": "r1"]) == [
                "X-Api-Key": "<redacted>", "X-Request-Id": "r1",
            ])
    }

    @Test("free text: a JWT without its scheme and a URL's password are hidden too")
    func freeText() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl"
        #expect(
            Redaction.default.redact(text: "rejected \(jwt), see https://ada:pw@h.test/x?y=1 and eyJnot-a-jwt")
                == "rejected <redacted>, see https://ada:<redacted>@h.test/x?y=1 and eyJnot-a-jwt")
        #expect(Redaction.none.redact(text: jwt) == jwt)
    }

    @Test("an echoed header in a body is hidden by the header rule; field names like token_type are not")
    func echoedHeaders() {
        let body = Data(
            #"{"headers": {"x-api-key": "k-1", "x-session-id": "s-1", "accept": "*/*"}, "token_type": "Bearer"}"#.utf8)
        #expect(
            String(decoding: Redaction.default.redact(body: body, contentType: "application/json"), as: UTF8.self)
                == #"{"headers": {"x-api-key": "<redacted>", "x-session-id": "<redacted>", "accept": "*/*"}, "token_type": "Bearer"}"#
        )
    }

    @Test("the name rule is configurable: fragments, public headers and exact names")
    func configurable() {
        let exact = Redaction(headers: ["X-Tenant"], headerNameFragments: [])
        #expect(exact.isSecret(header: "x-tenant"))
        #expect(!exact.isSecret(header: "X-Api-Key"))
        let custom = Redaction(headerNameFragments: ["tenant"], publicHeaders: ["X-Tenant-Name"])
        #expect(custom.isSecret(header: "X-Tenant-Id"))
        #expect(!custom.isSecret(header: "X-Tenant-Name"))
        #expect(!custom.isSecret(header: "X-Api-Key"))
        #expect(custom.isSecret(header: "Authorization"))
        #expect(Redaction.default.adding(headers: ["WWW-Authenticate"]).isSecret(header: "WWW-Authenticate"))
        #expect(!Redaction.none.isSecret(header: "Authorization"))
    }

    @Test("error descriptions follow the same list as the logger")
    func errorsUseTheList() {
        var request = URLRequest(url: URL(string: "https://api.example.com/a?api_key=k-1&otp=9&page=2")!)
        request.httpMethod = "DELETE"
        let error = CourierError.statusCode(Response(statusCode: 500, data: Data(), request: request))
        #expect(error.description.hasPrefix("DELETE https://api.example.com/a?api_key=<redacted>&otp=9&page=2 "))
        let withOTP = error.description(redactedBy: Redaction.default.adding(keys: ["otp"]))
        #expect(withOTP.hasPrefix("DELETE https://api.example.com/a?api_key=<redacted>&otp=<redacted>&page=2 "))
        #expect(
            error.description(redactedBy: Redaction.none).hasPrefix(
                "DELETE https://api.example.com/a?api_key=k-1&otp=9"))
    }

    @Test("JSON keeps its key order, numbers and layout; only secret values change")
    func jsonInPlace() {
        let redaction = Redaction.default
        let body = #"""
            {"z": 1.50, "a": 1e3, "password": "p\"w", "n": [ {"refresh_token": {"a": [1, 2]}}, -0.0 ],
             "next": "https:\/\/h\/?access_token=T&x=1", "esc\u0061ped": "\u00e9", "big": 12345678901234567890}
            """#
        let redacted = String(
            decoding: redaction.redact(body: Data(body.utf8), contentType: "application/json"), as: UTF8.self)
        #expect(
            redacted == #"""
                {"z": 1.50, "a": 1e3, "password": "<redacted>", "n": [ {"refresh_token": "<redacted>"}, -0.0 ],
                 "next": "https://h/?access_token=<redacted>&x=1", "esc\u0061ped": "\u00e9", "big": 12345678901234567890}
                """#)
        // A key written with escapes is still recognised.
        let escapedKey = Data(#"{"pass\u0077ord": 1}"#.utf8)
        #expect(
            String(decoding: redaction.redact(body: escapedKey, contentType: nil), as: UTF8.self)
                == #"{"pass\u0077ord": "<redacted>"}"#)
    }

    @Test("seeded fuzzing: redacted JSON parses, hides every secret and keeps everything else")
    func jsonFuzz() throws {
        var random = SeededRandom(seed: 0xC0FFEE)
        let redaction = Redaction.default
        for _ in 0..<1500 {
            let value = random.jsonValue(depth: 0)
            let options: JSONSerialization.WritingOptions = random.next() % 2 == 0 ? [.prettyPrinted] : []
            guard let data = try? JSONSerialization.data(withJSONObject: ["root": value], options: options) else {
                continue
            }
            let redacted = redaction.redact(body: data, contentType: "application/json")
            let parsed = try #require(try? JSONSerialization.jsonObject(with: redacted) as? [String: Any])
            let expected = try #require(try? JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(Self.matches(parsed, expected), "\(String(decoding: redacted, as: UTF8.self))")
            let text = String(decoding: redacted, as: UTF8.self)
            #expect(!text.contains("SECRET"), "\(text)")
            if !String(decoding: data, as: UTF8.self).contains("SECRET") { #expect(redacted == data) }
        }
    }

    /// `actual` is `expected` with every secret field's value replaced.
    static func matches(_ actual: Any, _ expected: Any) -> Bool {
        switch (actual, expected) {
        case (let actual as [String: Any], let expected as [String: Any]):
            guard Set(actual.keys) == Set(expected.keys) else { return false }
            return expected.allSatisfy { key, value in
                Redaction.default.isSecret(key: key)
                    ? actual[key] as? String == "<redacted>" : matches(actual[key]!, value)
            }
        case (let actual as [Any], let expected as [Any]):
            return actual.count == expected.count && zip(actual, expected).allSatisfy { matches($0, $1) }
        case (let actual as String, let expected as String):
            return actual == expected || (expected.contains("SECRET") && actual.contains("<redacted>"))
        default:
            return "\(actual)" == "\(expected)"
        }
    }
}

/// Random JSON and text from a seeded generator, so a failure can be replayed.
struct SeededRandom {
    private var generator: SeededRandomNumberGenerator
    init(seed: UInt64) { generator = SeededRandomNumberGenerator(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }

    mutating func string() -> String {
        pick([
            "plain", "with \"quotes\" and \\ backslash", "ünïcødé ✓", "line\nbreak", "", "Bearer SECRET-b",
            "https://h/?access_token=SECRET-u&x=1", "tab\tand /slash/", "password=SECRET-f",
        ])
    }

    mutating func jsonValue(depth: Int) -> Any {
        switch next() % (depth > 4 ? 4 : 6) {
        case 0: return Int(truncatingIfNeeded: next() % 100_000) - 50_000
        case 1: return Double(next() % 10_000) / 7
        case 2: return string()
        case 3: return pick([true, false, NSNull()] as [Any])
        case 4: return (0..<Int(next() % 4)).map { _ in jsonValue(depth: depth + 1) }
        default:
            var object: [String: Any] = [:]
            for _ in 0..<Int(next() % 5) {
                let key = pick(["id", "name", "access_token", "Password", "refreshToken", "nested", "x-y", "é"])
                object[key] =
                    key == "id" || key == "name" || key == "nested" || key == "x-y" || key == "é"
                    ? jsonValue(depth: depth + 1) : "SECRET-\(next() % 1000)"
            }
            return object
        }
    }
}
