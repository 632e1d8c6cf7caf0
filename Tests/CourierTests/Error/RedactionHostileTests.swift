import Courier
import Foundation
import Testing

/// Bodies built to get a secret past the redactor: deep nesting, every value type, escapes,
/// duplicate keys, byte order marks, cut and malformed JSON, wide encodings, forms.
@Suite("Redaction of hostile bodies", .timeLimit(.minutes(20)))
struct RedactionHostileTests {
    let redaction = Redaction.default

    func redacted(_ body: String, contentType: String? = "application/json") -> String {
        String(decoding: redaction.redact(body: Data(body.utf8), contentType: contentType), as: UTF8.self)
    }

    static let values = [
        #""DEEP-SECRET-STRING""#, "12345", "-1.5e3", "true", "false", "null", #"{"value":"DEEP-SECRET-OBJECT"}"#,
        #"[["DEEP-SECRET-ARRAY"],{"k":[1,{"x":"DEEP-SECRET-NESTED"}]},[]]"#, "{}", "[]",
    ]

    @Test(
        "a secret's value is hidden whole at any depth, whatever its type, and the JSON stays as it was",
        arguments: [1, 511, 512, 513, 600, 5_000, 100_000])
    func anyDepth(depth: Int) throws {
        let deep = depth > 10_000
        for value in deep ? [Self.values[6], Self.values[7]] : Self.values {
            for key in deep ? ["refresh_token"] : ["refresh_token", "access_token", "client_secret", "Password"] {
                let open = String(repeating: #"{"a":["#, count: depth)
                let close = String(repeating: "]}", count: depth)
                let body = open + #"{"n":1,"\#(key)": \#(value) ,"z":"ok"}"# + close
                let expected = open + #"{"n":1,"\#(key)": "<redacted>" ,"z":"ok"}"# + close
                #expect(redacted(body) == expected, "depth \(depth), \(key): \(value)")
            }
        }
        // The 600-deep case of the report, checked by a JSON parser too.
        if depth < 400 {
            let body =
                String(repeating: #"{"e":"#, count: depth) + #"{"refresh_token":{"value":"DEEP-SECRET-OBJECT"}}"#
                + String(repeating: "}", count: depth)
            let parsed = try JSONSerialization.jsonObject(with: Data(redacted(body).utf8))
            #expect(parsed is [String: Any])
        }
    }

    @Test("keys written with escapes are recognised; escaped quotes and backslashes never end a string early")
    func escapes() {
        let cases: [(String, String)] = [
            (#"{"refresh\u005ftoken":{"v":"S1"}}"#, #"{"refresh\u005ftoken":"<redacted>"}"#),
            (#"{"REFRESH\u005FTOKEN":"S1"}"#, #"{"REFRESH\u005FTOKEN":"<redacted>"}"#),
            (#"{"\u0072efresh_token":[1],"x":2}"#, #"{"\u0072efresh_token":"<redacted>","x":2}"#),
            (#"{"pass\/word":"S1"}"#, #"{"pass\/word":"S1"}"#),  // `pass/word` is another name
            (#"{"a":"x\\","refresh_token":"S1"}"#, #"{"a":"x\\","refresh_token":"<redacted>"}"#),
            (#"{"a":"x\\\"","refresh_token":"S1"}"#, #"{"a":"x\\\"","refresh_token":"<redacted>"}"#),
            (#"{"a\"b":"x","password":"S1"}"#, #"{"a\"b":"x","password":"<redacted>"}"#),
            (#"{"\ud83d\ude00":"😀","password":"S1"}"#, #"{"\ud83d\ude00":"😀","password":"<redacted>"}"#),
            // A value that is itself JSON: decoded, its secrets hidden, written again.
            (#"{"a":"{\"refresh_token\":\"S1\"}"}"#, #"{"a":"{\"refresh_token\":\"<redacted>\"}"}"#),
            (
                #"{"a":"\u0022refresh_token\u0022: \u0022S1\u0022"}"#,
                #"{"a":"\"refresh_token\": \"<redacted>\""}"#
            ),
            (#"{"xml":"<password>S1</password>"}"#, #"{"xml":"<password><redacted></password>"}"#),
            // Not JSON's escape: read as text, and still hidden.
            (#"{"a":"\x","refresh_token":"S1"}"#, #"{"a":"\x","refresh_token":"<redacted>"}"#),
        ]
        for (body, expected) in cases {
            #expect(redacted(body) == expected, "\(body)")
        }
    }

    @Test("every occurrence of a duplicated key is hidden, under any spelling of the name")
    func duplicateKeys() {
        #expect(
            redacted(#"{"refresh_token":"S1","refresh_token":{"v":"S2"},"refreshToken":["S3"],"Refresh-Token":4}"#)
                == #"{"refresh_token":"<redacted>","refresh_token":"<redacted>","refreshToken":"<redacted>","Refresh-Token":"<redacted>"}"#
        )
    }

    @Test("a byte order mark, NDJSON and Python's NaN and Infinity keep the JSON reading")
    func lenientJSON() {
        #expect(redacted("\u{FEFF}{\"refresh_token\":{\"v\":\"S1\"}}") == "\u{FEFF}{\"refresh_token\":\"<redacted>\"}")
        #expect(
            redacted("{\"a\":1}\n{\"refresh_token\":[\"S1\"]}\n[{\"password\":\"S2\"}]\n")
                == "{\"a\":1}\n{\"refresh_token\":\"<redacted>\"}\n[{\"password\":\"<redacted>\"}]\n")
        #expect(
            redacted(#"{"r": NaN, "refresh_token": {"v": "S1"}, "x": -Infinity, "y": [Infinity]}"#)
                == #"{"r": NaN, "refresh_token": "<redacted>", "x": -Infinity, "y": [Infinity]}"#)
    }

    @Test("a body cut at any byte never shows any part of a secret")
    func cutAnywhere() {
        let body = #"""
            {"user": {"name": "Ada", "password": "QQQQQQQQ", "tokens": [{"refresh_token": {"v": ["QQQ", {"w": "QQ\"Q"}]}}]},
             "note": "see https://ada:QQQQ@h.test/x and Bearer QQQQQ.QQ", "jwt": "eyJQQQQ.eyJQQQ.QQQQ", "access_token": 9999}
            """#
        let bytes = Array(body.utf8)
        for length in 0...bytes.count {
            let text = String(decoding: redaction.redact(body: Data(bytes[..<length]), contentType: nil), as: UTF8.self)
            #expect(!text.contains("Q"), "cut after \(length) bytes: \(text)")
            #expect(!text.contains("9999"), "cut after \(length) bytes: \(text)")
        }
    }

    @Test(
        "malformed JSON is read as text: object and array values are hidden to their closing bracket",
        arguments: [
            #"{"refresh_token": {"value": "DEEP-SECRET-OBJECT", "l": [1, "}"]}, oops, "name": "Ada"}"#,
            #"{'refresh_token': {'value': 'DEEP-SECRET', 'l': ['DEEP-SECRET']}, 'name': 'Ada'}"#,
            #"{'password': 'DEEP\'SECRET', 'name': 'Ada'}"#,
            // Escaped twice over and malformed: hidden to the end, more than needed, never less.
            #"{"msg": "{\"refresh_token\": {\"v\": \"DEEP-SECRET}\"}}", oops}"#,
            #"{"msg": "{\u0022refresh_token\u0022: \u0022DEEP-SECRET\u0022}", oops, "name": "Ada"}"#,
            #"{"refresh_token" :\n  [1, {"a": "DEEP-SECRET"}], trailing,, "name": "Ada"}"#,
            "{\"refresh_token\" :\n  [1, {\"a\": \"DEEP-SECRET\"}], trailing,, \"name\": \"Ada\"}",
            #"{"refresh_token": ""DEEP-SECRET", "name": "Ada"}"#,
            #"{"refresh\u005ftoken": {"v": "DEEP-SECRET"} "name": "Ada"}"#,
            #"[{"refresh_token": {"v": "DEEP-SECRET"}}]] "name": "Ada""#,
            "refresh_token:\n  {\"v\": \"DEEP-SECRET\"}\nname: Ada",
            #"oops {"refresh_token": {"v": "DEEP-SECRET", "w": ["DEEP-SECRET""#,
            // JSON shown in an HTML error page.
            "<pre>{&quot;refresh_token&quot;: {&quot;v&quot;: &quot;DEEP-SECRET}&quot;}, &quot;name&quot;: &quot;Ada&quot;}</pre>",
            "<p>{&#34;password&#34;: &#34;DEEP-SECRET&#34;, &#34;name&#34;: &#34;Ada&#34;}</p>",
        ])
    func malformed(body: String) {
        let text = redacted(body)
        #expect(!text.contains("DEEP"), "\(text)")
        #expect(text.contains("Ada") || !body.contains("Ada"), "only the secret is hidden: \(text)")
        #expect(text.contains("<redacted>"))
    }

    @Test("UTF-16 and UTF-32 bodies, with or without a byte order mark, are read as text")
    func wideEncodings() {
        let body = #"{"refresh_token": {"v": "DEEP-SECRET"}, "name": "Ada"}"#
        let encodings: [String.Encoding] = [
            .utf16LittleEndian, .utf16BigEndian, .utf16, .utf32LittleEndian, .utf32BigEndian, .utf32,
        ]
        for encoding in encodings {
            let data = body.data(using: encoding)!
            let text = String(decoding: redaction.redact(body: data, contentType: "application/json"), as: UTF8.self)
            #expect(text == #"{"refresh_token": "<redacted>", "name": "Ada"}"#, "\(encoding)")
            let clean = #"{"name": "Ada"}"#.data(using: encoding)!
            #expect(redaction.redact(body: clean, contentType: nil) == clean, "unchanged: \(encoding)")
        }
        // A huge one is read only as far as it can be shown, and its secrets are still hidden.
        let huge = (body.dropLast() + #", "pad": ""# + String(repeating: "😀", count: 500_000) + "\"}")
            .data(using: .utf16LittleEndian)!
        let part = redaction.redact(body: huge, contentType: nil, limit: 100)
        #expect(!part.isComplete)
        #expect(part.data.count < 2_000)
        #expect(String(decoding: part.data, as: UTF8.self).hasPrefix(#"{"refresh_token": "<redacted>", "name": "Ada""#))
    }

    @Test("form bodies: secret fields, values that hold a secret, and a body that only claims to be a form")
    func forms() {
        let form = "a=1&refresh_token=S1&next=%2Fcb%3Faccess_token%3DS2&Bearer%20S3&user%5Bpassword%5D=S4&b=2"
        #expect(
            redacted(form, contentType: "application/x-www-form-urlencoded")
                == "a=1&refresh_token=<redacted>&next=<redacted>&<redacted>&user%5Bpassword%5D=<redacted>&b=2")
        let notAForm = #"{"refresh_token": {"v": "S1"}, oops}"#
        #expect(!redacted(notAForm, contentType: "application/x-www-form-urlencoded").contains("S1"))
        #expect(
            redacted("grant_type=refresh_token&refresh_token=S1", contentType: nil)
                == "grant_type=refresh_token&refresh_token=<redacted>")
    }

    @Test("text: a secret name's value is hidden whole, whatever it is")
    func text() {
        let cases: [(String, String)] = [
            (#"error: refresh_token={"v": "S1"} rejected"#, "error: refresh_token=<redacted> rejected"),
            ("refresh_token: [1, 2] and more", "refresh_token: <redacted> and more"),
            (#"password="a b" ok"#, #"password="<redacted>" ok"#),
            ("password = hunter2\nuser = ada", "password = <redacted>\nuser = ada"),
            ("token: Bearer abc.def rejected", "token: <redacted> rejected"),
            ("refresh_token= Bearer abc", "refresh_token= <redacted>"),
            (
                "<fault><password>hunter2</password><user>ada</user><ns:refresh_token><v>S1</v></ns:refresh_token></fault>",
                "<fault><password><redacted></password><user>ada</user><ns:refresh_token><redacted></ns:refresh_token></fault>"
            ),
            ("<access_token><![CDATA[S1 < S2]]></access_token>", "<access_token><redacted></access_token>"),
            (
                #"<token type="x" secret="S1">S2</token><a/>"#,
                #"<token type="x" secret="<redacted>"><redacted></token><a/>"#
            ),
            ("GET /reset/eyJhbGciOi.eyJzdWIiOi.c2ln HTTP/1.1", "GET /reset/<redacted> HTTP/1.1"),
        ]
        for (text, expected) in cases {
            #expect(redaction.redact(text: text) == expected)
        }
        #expect(
            redaction.redact(urlString: "https://h.test/reset/eyJhbGciOi.eyJzdWIiOi.c2ln;password=S1?a=1")
                == "https://h.test/reset/<redacted>;password=<redacted>?a=1")
    }

    @Test("a body redacted only as far as it is shown begins exactly as the whole redaction does")
    func prefixOfTheWhole() {
        let bodies = [
            #"{"a": "\#(String(repeating: "x", count: 300))", "refresh_token": {"v": "S1"}, "b": [1, 2, 3], "password": "S2"}"#,
            #"oops {"refresh_token": {"v": "S1"}} Bearer abc.def then "password": "S2" \#(String(repeating: "y", count: 200))"#,
            "a=1&refresh_token=S1&\(String(repeating: "b=2&", count: 80))password=S2",
            String(repeating: "é ", count: 300) + "password=S1",
        ]
        for body in bodies {
            let data = Data(body.utf8)
            let whole = redaction.redact(body: data, contentType: nil)
            for limit in [0, 1, 5, 17, 40, 64, 100, 333, 500, 10_000] {
                let part = redaction.redact(body: data, contentType: nil, limit: limit)
                #expect(whole.starts(with: part.data), "limit \(limit): \(String(decoding: part.data, as: UTF8.self))")
                #expect(part.isComplete == (part.data == whole), "limit \(limit)")
                #expect(part.isComplete || part.data.count >= limit, "limit \(limit)")
                #expect(String(data: part.data, encoding: .utf8) != nil, "never cuts a character: limit \(limit)")
            }
        }
    }
}
