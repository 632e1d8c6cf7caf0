import Foundation
import Testing

@testable import Courier

@Suite("multipart/form-data encoding")
struct MultipartFormDataTests {
    private func string(_ parts: [MultipartFormBodyPart], boundary: String = "b0undary") throws -> String {
        String(decoding: try MultipartFormat.encode(parts, boundary: boundary), as: UTF8.self)
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-multipart-test-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a body is delimiter, headers, blank line, content and CRLF per part, then the close delimiter")
    func exactBody() throws {
        let body = try string([
            MultipartFormBodyPart(provider: .data(Data("1".utf8)), name: "a"),
            MultipartFormBodyPart(
                provider: .data(Data("hi".utf8)), name: "f", fileName: "x.txt", mimeType: "text/plain"),
        ])
        #expect(
            body == "--b0undary\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"
                + "--b0undary\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n"
                + "Content-Type: text/plain\r\n\r\nhi\r\n--b0undary--\r\n")
    }

    @Test("no parts is just the close delimiter")
    func noParts() throws {
        #expect(try string([]) == "--b0undary--\r\n")
    }

    @Test(
        "names are escaped so they cannot end the parameter or the header",
        arguments: [
            ("plain", "plain"),
            ("quo\"te", "quo\\\"te"),
            ("back\\slash", "back\\\\slash"),
            ("cr\rlf\n", "cr%0Dlf%0A"),
            ("crlf\r\nX-Evil: 1", "crlf%0D%0AX-Evil: 1"),
            ("nul\u{0}del\u{7F}", "nul%00del%7F"),
            ("tab\tkept", "tab\tkept"),
            ("ünï 名前 🚀", "ünï 名前 🚀"),
            ("semi;colon=x", "semi;colon=x"),
        ])
    func escaping(name: String, escaped: String) {
        #expect(MultipartFormat.escape(name) == escaped)
    }

    @Test("a MIME type with line breaks cannot add a header")
    func mimeTypeInjection() {
        let part = MultipartFormBodyPart(
            provider: .data(Data()), name: "f", fileName: "f", mimeType: "text/plain\r\nX-Evil: 1")
        #expect(MultipartFormat.headers(for: part).components(separatedBy: "\r\n").count == 4)
        #expect(MultipartFormat.headers(for: part).contains("Content-Type: text/plainX-Evil: 1\r\n"))
    }

    @Test("the content length is exactly the size of the written body, for every kind of part")
    func contentLength() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("f.bin")
        try Data(repeating: 9, count: 70_001).write(to: file)
        let streamed = Data(repeating: 3, count: 65_537)
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("ünï".utf8)), name: "名前 \"q\""),
            MultipartFormBodyPart(provider: .file(file), name: "file", fileName: "f.bin", mimeType: "a/b"),
            MultipartFormBodyPart(
                provider: .stream(InputStream(data: streamed), length: UInt64(streamed.count)), name: "s",
                fileName: "s"),
        ]
        let length = try #require(MultipartFormat.contentLength(of: parts, boundary: "b0undary"))
        #expect(try MultipartFormat.encode(parts, boundary: "b0undary").count == Int(length))
    }

    @Test("the content length is unknown when a file part's file is missing")
    func contentLengthOfMissingFile() {
        let part = MultipartFormBodyPart(provider: .file(URL(fileURLWithPath: "/nonexistent/\(UUID())")), name: "f")
        #expect(MultipartFormat.contentLength(of: [part], boundary: "b") == nil)
    }

    @Test(
        "the boundary is read from a multipart content type, quoted or not",
        arguments: [
            ("multipart/form-data; boundary=abc", "abc"),
            ("multipart/form-data; boundary=\"a b:c\"", "a b:c"),
            ("Multipart/Mixed;BOUNDARY=xyz", "xyz"),
            ("multipart/form-data; charset=utf-8; boundary=last", "last"),
        ])
    func boundaryFromContentType(contentType: String, boundary: String) {
        #expect(MultipartFormat.boundary(fromContentType: contentType) == boundary)
    }

    @Test("no boundary without a multipart content type")
    func noBoundary() {
        #expect(MultipartFormat.boundary(fromContentType: nil) == nil)
        #expect(MultipartFormat.boundary(fromContentType: "application/json; boundary=x") == nil)
        #expect(MultipartFormat.boundary(fromContentType: "multipart/form-data") == nil)
    }

    @Test("boundaries follow RFC 2046: 1 to 70 allowed characters, no trailing space")
    func boundaryValidity() throws {
        #expect(MultipartFormat.isValidBoundary("courier.boundary.0f"))
        #expect(MultipartFormat.isValidBoundary("a b'()+_,-./:=?"))
        #expect(MultipartFormat.isValidBoundary(String(repeating: "x", count: 70)))
        #expect(!MultipartFormat.isValidBoundary(""))
        #expect(!MultipartFormat.isValidBoundary(String(repeating: "x", count: 71)))
        #expect(!MultipartFormat.isValidBoundary("trailing "))
        #expect(!MultipartFormat.isValidBoundary("quote\""))
        #expect(!MultipartFormat.isValidBoundary("line\r\nbreak"))
        #expect(throws: MultipartEncodingFailure.self) { try MultipartFormat.encode([], boundary: "bad\"") }
    }

    @Test("random boundaries are valid and differ")
    func randomBoundaries() {
        let boundaries = (0..<50).map { _ in MultipartFormat.randomBoundary() }
        #expect(boundaries.allSatisfy(MultipartFormat.isValidBoundary))
        #expect(Set(boundaries).count == 50)
    }

    @Test("a stream that delivers fewer or more bytes than announced fails the body")
    func streamLengthMismatch() {
        for (actual, announced) in [(10, 11), (12, 11)] {
            let part = MultipartFormBodyPart(
                provider: .stream(InputStream(data: Data(repeating: 1, count: actual)), length: UInt64(announced)),
                name: "s")
            #expect {
                try MultipartFormat.encode([part], boundary: "b")
            } throws: { error in
                guard case .lengthMismatch("s", let expected, let got) = error as? MultipartEncodingFailure else {
                    return false
                }
                return expected == UInt64(announced) && got == UInt64(min(actual, announced + 1))
            }
        }
    }

    @Test("a stream part can be written once; a second body fails with streamAlreadyRead")
    func streamReadOnce() throws {
        let part = MultipartFormBodyPart(provider: .stream(InputStream(data: Data("abc".utf8)), length: 3), name: "s")
        _ = try MultipartFormat.encode([part], boundary: "b")
        #expect {
            try MultipartFormat.encode([part], boundary: "b")
        } throws: { error in
            if case .streamAlreadyRead = error as? MultipartEncodingFailure { return true }
            return false
        }
    }

    @Test("a missing file or a directory as a file part fails with unreadableFile")
    func unreadableFilePart() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for url in [directory.appendingPathComponent("missing"), directory] {
            #expect {
                try MultipartFormat.encode([MultipartFormBodyPart(provider: .file(url), name: "f")], boundary: "b")
            } throws: { error in
                if case .unreadableFile(let reported) = error as? MultipartEncodingFailure { return reported == url }
                return false
            }
        }
    }

    @Test("a body written to disk has the same bytes, is private to the user, and is named courier-multipart-…")
    func temporaryFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = [MultipartFormBodyPart(provider: .data(Data(repeating: 5, count: 200_000)), name: "d")]
        let file = try MultipartFormat.writeToTemporaryFile(parts, boundary: "b", in: directory)
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        #expect(file.lastPathComponent.hasPrefix("courier-multipart-"))
        #expect(try Data(contentsOf: file) == MultipartFormat.encode(parts, boundary: "b"))
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test("a cancelled or failed write leaves no temporary file")
    func temporaryFileRemovedOnFailure() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = MultipartFormBodyPart(
            provider: .stream(InputStream(data: Data(repeating: 1, count: 1_000_000)), length: 1_000_000), name: "s")
        var polls = 0
        #expect(throws: CancellationError.self) {
            try MultipartFormat.writeToTemporaryFile([big], boundary: "b", in: directory) {
                polls += 1
                return polls > 3  // cancelled after a few blocks
            }
        }
        let short = MultipartFormBodyPart(provider: .stream(InputStream(data: Data()), length: 5), name: "short")
        #expect(throws: MultipartEncodingFailure.self) {
            try MultipartFormat.writeToTemporaryFile([short], boundary: "b", in: directory)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a stream is available until it is taken or opened")
    func oneShotAvailability() {
        let box = OneShotInputStream(InputStream(data: Data("x".utf8)))
        #expect(box.isAvailable)
        #expect(box.take() != nil)
        #expect(!box.isAvailable)
        #expect(box.take() == nil)

        // A target that wraps the same InputStream again for a replay: it was opened (and
        // read) by the first attempt, so it is not available.
        let stream = InputStream(data: Data("y".utf8))
        stream.open()
        var byte: UInt8 = 0
        _ = stream.read(&byte, maxLength: 1)
        stream.close()
        #expect(!OneShotInputStream(stream).isAvailable)
        #expect(
            !RequestTask.uploadMultipart([MultipartFormBodyPart(provider: .stream(stream, length: 1), name: "s")])
                .isReplayable)
    }
}
