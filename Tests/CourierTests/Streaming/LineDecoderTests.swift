import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Lines and JSON Lines read from chunks of every size.
@Suite("Line and JSON Lines decoders")
struct LineDecoderTests {
    private func lines(_ bytes: [UInt8], maximumLineLength: Int = LineDecoder.defaultMaximumLineLength) throws
        -> [String]
    {
        var results: [[String]] = []
        for chunks in StreamChunking.all(bytes) {
            var decoder = LineDecoder(maximumLineLength: maximumLineLength)
            var got: [String] = []
            for chunk in chunks { got += try decoder.decode(chunk) }
            if let last = decoder.finish() { got.append(last) }
            results.append(got)
        }
        #expect(Set(results).count == 1, "every chunking reads the same lines")
        return results[0]
    }

    @Test("Lines end at LF, CR or CRLF; a CRLF cut between chunks is one line end; the last needs none")
    func lineEnds() throws {
        #expect(try lines(Array("a\nb\rc\r\nd\n\ne".utf8)) == ["a", "b", "c", "d", "", "e"])
        #expect(try lines(Array("a\r\n".utf8)) == ["a"])
        #expect(try lines([]) == [])
    }

    @Test("UTF-8 characters cut between chunks are read whole; invalid bytes read as U+FFFD")
    func utf8() throws {
        #expect(try lines(Array("é😀\n中".utf8)) == ["é😀", "中"])
        #expect(try lines([0x61, 0xFF, 0x0A]) == ["a\u{FFFD}"])
    }

    @Test("A line past the bound is a typed error, even before its line end arrives")
    func bounded() throws {
        #expect(try lines(Array((String(repeating: "x", count: 16) + "\n").utf8), maximumLineLength: 16).count == 1)
        var decoder = LineDecoder(maximumLineLength: 16)
        #expect(throws: StreamDecodingError(kind: .lineTooLong(limit: 16), byteOffset: 17)) {
            _ = try decoder.decode(Array(repeating: UInt8(ascii: "x"), count: 17))
        }
    }

    struct Entry: Decodable, Hashable, Sendable {
        let id: Int
        let text: String
    }

    private func entries(_ text: String) throws -> [Entry] {
        var results: [[Entry]] = []
        for chunks in StreamChunking.all(Array(text.utf8)) {
            var decoder = JSONLinesDecoder<Entry>()
            var got: [Entry] = []
            for chunk in chunks { got += try decoder.decode(chunk) }
            if let last = try decoder.finish() { got.append(last) }
            results.append(got)
        }
        #expect(Set(results).count == 1, "every chunking decodes the same values")
        return results[0]
    }

    @Test("JSON Lines: one value a line, CRLF accepted, blank lines skipped, the last line needs no LF")
    func jsonLines() throws {
        let text = "{\"id\":1,\"text\":\"a\\nb\"}\r\n\n  \n{\"id\":2,\"text\":\"é😀\"}\n{\"id\":3,\"text\":\"\"}"
        #expect(
            try entries(text) == [Entry(id: 1, text: "a\nb"), Entry(id: 2, text: "é😀"), Entry(id: 3, text: "")])
    }

    @Test("JSON Lines: a line of the wrong shape names its line number and what was expected, not its content")
    func invalidLine() throws {
        var decoder = JSONLinesDecoder<Entry>()
        let chunk = Array("{\"id\":1,\"text\":\"a\"}\n\n{\"id\":\"secret-value\",\"text\":\"b\"}\n".utf8)
        do {
            _ = try decoder.decode(chunk)
            Issue.record("a line of the wrong shape decoded")
        } catch let error as StreamDecodingError {
            guard case .invalidJSONLine(line: 3, _) = error.kind else {
                Issue.record("wrong kind: \(error.kind)")
                return
            }
            #expect("\(error)".contains("line 3"))
            #expect("\(error)".contains("id"))
            #expect(!"\(error)".contains("secret-value"))
        }
        var unterminated = JSONLinesDecoder<Entry>()
        _ = try unterminated.decode(Array("{\"id\":1,".utf8))
        #expect(throws: StreamDecodingError.self) { _ = try unterminated.finish() }
    }
}
