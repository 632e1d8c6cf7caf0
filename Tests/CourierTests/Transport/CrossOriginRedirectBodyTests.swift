import Courier
import Foundation
import Testing

/// Which bodies carry a credential that must stay with its origin.
@Suite("CrossOriginRedirect.bodyCarriesCredential")
struct CrossOriginRedirectBodyTests {
    static let carrying: [(String?, String)] = [
        ("application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=rt-1"),
        ("application/x-www-form-urlencoded", "client_id=app&client_secret=s"),
        ("application/json", #"{"username":"ann","password":"hunter2"}"#),
        ("application/json", #"{"a":[{"b":{"access_token":{"value":"deep"}}}]}"#),
        ("application/vnd.api+json", #"{"data":{"attributes":{"apiKey":"k"}}}"#),
        ("text/plain", "Authorization: Bearer abc.def"),
        ("application/json", #"{"note":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"}"#),
        (nil, "user=ann&password=hunter2"),
        (
            "multipart/form-data; boundary=b",
            "--b\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2\r\n--b--\r\n"
        ),
        (
            "multipart/form-data; boundary=\"b\"",
            "--b\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n"
                + #"{"refresh_token":"rt"}"# + "\r\n--b--\r\n"
        ),
    ]

    static let plain: [(String?, String)] = [
        ("application/json", #"{"amount":100,"token_type":"bearer","expires_in":3600}"#),
        ("application/x-www-form-urlencoded", "q=swift&page=2"),
        ("text/plain", "hello"),
        (
            "multipart/form-data; boundary=b",
            "--b\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nholiday\r\n"
                + "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"password.txt\"\r\n\r\n"
                + "password=this-is-the-uploaded-file\r\n--b--\r\n"
        ),
    ]

    @Test("a field, header line, JWT or multipart part that the redactor hides makes the body carry a credential")
    func carrying() {
        for (contentType, text) in Self.carrying {
            #expect(CrossOriginRedirect.bodyCarriesCredential(Data(text.utf8), contentType: contentType), "\(text)")
        }
    }

    @Test("a body without one does not; a file part's bytes are the upload, not fields")
    func plain() {
        for (contentType, text) in Self.plain {
            #expect(!CrossOriginRedirect.bodyCarriesCredential(Data(text.utf8), contentType: contentType), "\(text)")
        }
        #expect(!CrossOriginRedirect.bodyCarriesCredential(Data(), contentType: "application/json"))
        #expect(
            !CrossOriginRedirect.bodyCarriesCredential(
                Data((0..<1024).map { UInt8(truncatingIfNeeded: $0) }), contentType: "application/octet-stream"))
    }

    @Test("a body too large to read counts as carrying one when it is text, not when it is binary")
    func tooLargeToRead() {
        let large = Data(repeating: UInt8(ascii: "a"), count: CrossOriginRedirect.largestExaminedBody + 1)
        for contentType in ["application/json", "application/x-www-form-urlencoded", "text/csv", nil] {
            #expect(
                CrossOriginRedirect.bodyCarriesCredential(large, contentType: contentType),
                "\(String(describing: contentType))")
        }
        for contentType in ["application/octet-stream", "image/png", "video/mp4"] {
            #expect(!CrossOriginRedirect.bodyCarriesCredential(large, contentType: contentType), "\(contentType)")
        }
    }

    @Test("a file is read as its bytes; a missing one counts as carrying a credential")
    func files() throws {
        let directory = FileManager.default.temporaryDirectory
        let secret = directory.appendingPathComponent("body-\(UUID().uuidString).json")
        let plain = directory.appendingPathComponent("body-\(UUID().uuidString).json")
        defer {
            try? FileManager.default.removeItem(at: secret)
            try? FileManager.default.removeItem(at: plain)
        }
        try Data(#"{"password":"x"}"#.utf8).write(to: secret)
        try Data(#"{"amount":1}"#.utf8).write(to: plain)
        #expect(CrossOriginRedirect.bodyCarriesCredential(contentsOf: secret, contentType: "application/json"))
        #expect(!CrossOriginRedirect.bodyCarriesCredential(contentsOf: plain, contentType: "application/json"))
        #expect(
            CrossOriginRedirect.bodyCarriesCredential(
                contentsOf: directory.appendingPathComponent("missing-\(UUID().uuidString)"), contentType: nil))
    }
}
