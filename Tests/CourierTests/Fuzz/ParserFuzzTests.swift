import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Builds random inputs that look like what a server sends: JSON-ish text, mutated
/// valid bodies, raw bytes.
struct FuzzInput {
    var random: SeededRandomNumberGenerator

    static let fragments = [
        "{", "}", "[", "]", ":", ",", "\"", "\\", "access_token", "refresh_token", "expires_in", "token_type",
        "error", "invalid_grant", "status", "8", "null", "true", "false", "-1", "1e308", "0.5", "\u{0}", "é",
        "\u{1F600}",
        "\"\"", "NaN", "9999999999999999999999", ".", "data", "items", "0", "eyJhbGciOiJub25lIn0", "=", "%",
    ]

    mutating func bytes(maxCount: Int = 64) -> Data {
        let count = Int.random(in: 0...maxCount, using: &random)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    mutating func jsonish(maxPieces: Int = 24) -> String {
        let count = Int.random(in: 0...maxPieces, using: &random)
        return (0..<count).map { _ in Self.fragments.randomElement(using: &random)! }.joined()
    }

    /// A valid document with one random edit: a deleted, duplicated or replaced slice.
    mutating func mutated(_ valid: String) -> String {
        var characters = Array(valid)
        guard !characters.isEmpty else { return valid }
        let start = Int.random(in: 0..<characters.count, using: &random)
        let end = min(characters.count, start + Int.random(in: 0...6, using: &random))
        switch Int.random(in: 0..<3, using: &random) {
        case 0: characters.removeSubrange(start..<end)
        case 1: characters.insert(contentsOf: characters[start..<end], at: start)
        default: characters.replaceSubrange(start..<end, with: Array(Self.fragments.randomElement(using: &random)!))
        }
        return String(characters)
    }

    mutating func any() -> Data {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: bytes()
        case 1: Data(jsonish().utf8)
        default:
            Data(
                mutated(
                    #"{"access_token":"at-1","token_type":"bearer","expires_in":3600,"refresh_token":"rt","data":{"items":[{"id":1}],"status":"8"}}"#
                ).utf8)
        }
    }
}

/// Thousands of random inputs into every parser that reads server data: none may crash,
/// and each either parses or fails with its typed error.
///
/// The loops yield now and then: on a 2-core machine the cooperative pool has two threads,
/// and a test that holds one for seconds delays every other test's timers.
@Suite("Parser fuzzing")
struct ParserFuzzTests {
    static let iterations = 3_000

    @Test("token responses: parse or invalidTokenResponse, never a crash", arguments: [1, 2, 3] as [UInt64])
    func tokenResponses(seed: UInt64) async {
        var input = FuzzInput(random: SeededRandomNumberGenerator(seed: seed))
        var parsed = 0
        for iteration in 0..<Self.iterations {
            if iteration % 100 == 0 { await Task.yield() }
            let body = input.any()
            do {
                let token = try OAuthToken(tokenResponse: body, receivedAt: Date(timeIntervalSince1970: 0))
                #expect(!token.accessToken.isEmpty)
                parsed += 1
            } catch {
                if case .invalidTokenResponse = error {} else { Issue.record("unexpected \(error)") }
            }
        }
        #expect(parsed > 0, "the mutations keep some valid token responses")
    }

    @Test("JWT exp reading survives any token text")
    func jwt() async {
        var input = FuzzInput(random: SeededRandomNumberGenerator(seed: 7))
        for iteration in 0..<Self.iterations {
            if iteration % 100 == 0 { await Task.yield() }
            let parts = (0..<Int.random(in: 0...4, using: &input.random)).map { _ in
                input.bytes(maxCount: 24).base64EncodedString()
            }
            _ = JWT.expiry(of: parts.joined(separator: "."))
            _ = JWT.expiry(of: input.jsonish())
        }
        #expect(JWT.expiry(of: "a.b.c") == nil)
    }

    @Test("key-path mapping on random JSON and random paths: a value or a typed error")
    func keyPaths() async {
        var input = FuzzInput(random: SeededRandomNumberGenerator(seed: 11))
        let paths = [
            "", ".", "data", "data.items", "data.items.0", "data.items.0.id", "data.items.-1", "a..b", "status", "0",
        ]
        for iteration in 0..<Self.iterations {
            if iteration % 100 == 0 { await Task.yield() }
            let response = Response(statusCode: 200, data: input.any())
            let path =
                Bool.random(using: &input.random)
                ? paths.randomElement(using: &input.random)! : input.jsonish(maxPieces: 4)
            do {
                _ = try response.mapString(atKeyPath: path)
            } catch {
                switch error {
                case .jsonMapping, .stringMapping: break
                default: Issue.record("mapString threw \(error)")
                }
            }
            do {
                _ = try response.map([String: Int].self, atKeyPath: path)
            } catch {
                if case .objectMapping = error {
                } else if case .jsonMapping = error {
                } else {
                    Issue.record("map threw \(error)")
                }
            }
            _ = try? response.mapJSON(failsOnEmptyData: false)
        }
    }

    @Test("refresh failure classification reads any 400 body without crashing")
    func classifier() async {
        var input = FuzzInput(random: SeededRandomNumberGenerator(seed: 13))
        for iteration in 0..<Self.iterations {
            if iteration % 100 == 0 { await Task.yield() }
            let status = [400, 401, 403, 500].randomElement(using: &input.random)!
            let response = Response(statusCode: status, data: input.any())
            let rejected = RefreshFailureClassifier.isRejection(CourierError.statusCode(response))
            // An HTML page is never a logout, a 401 included.
            let page = response.data.first { !" \t\r\n".utf8.contains($0) } == UInt8(ascii: "<")
            if status == 401, !page { #expect(rejected) }
            if status >= 403 { #expect(!rejected) }
        }
    }

    @Test("Retry-After, multipart boundaries, redaction and URL building take any text")
    func textParsers() async {
        var input = FuzzInput(random: SeededRandomNumberGenerator(seed: 17))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        for iteration in 0..<Self.iterations {
            if iteration % 100 == 0 { await Task.yield() }
            let text = String(decoding: input.any(), as: UTF8.self)
            if let seconds = RetryAfter.seconds(from: text, now: now) { #expect(seconds >= 0) }
            _ = MultipartFormat.boundary(fromContentType: "multipart/form-data; " + text)
            let scrubbed = Redaction.default.redact(
                text: text + " Bearer secret-\(text.count) access_token=tok-\(text.count)")
            #expect(!scrubbed.contains("secret-\(text.count)"))
            #expect(!scrubbed.contains("tok-\(text.count)"))
            _ = URL.joining(URL(string: "https://api.example.com/v1?x=1")!, path: text)
            _ = URLEncoding.query(["k": text, text: [text]])
        }
    }
}
