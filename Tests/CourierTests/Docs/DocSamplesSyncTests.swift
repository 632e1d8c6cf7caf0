import Foundation
import Testing

/// The README's and the DocC articles' Swift code blocks must appear, line for line, in the
/// sample files next to this one (or in `Tests/CourierPluginsTests/Docs/`), which the test
/// targets compile — so a sample that stops compiling fails the build, and a sample edited in
/// the docs but not here fails this test.
///
/// Lines are compared without indentation, blank lines, `import` lines and a leading
/// `private` or `static` (samples nest the docs' functions in a namespace). A sample file wraps the docs' code in scaffolding — a namespace, a function
/// around top-level statements, a line that uses a value — and marks each such line with
/// `// sample scaffold`, so it is skipped too. Blocks whose first line is `// Moya` (code from
/// Moya, shown for comparison), `// Package.swift` (a manifest fragment) or starts with
/// `// Not compiled` (code that needs a framework Linux lacks, such as Combine or RxSwift;
/// the comment says why) are not compiled. Blocks whose first line is `// CourierCurl` use
/// the libcurl package, which this package cannot import: `Transports/CourierCurl`'s own
/// docs test compiles and checks them.
@Suite("Documentation samples")
struct DocSamplesSyncTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sampleFolders = ["Tests/CourierTests/Docs", "Tests/CourierPluginsTests/Docs"]

    /// Every module's DocC catalog: the articles and landing pages the docs build shows.
    static let catalogs = [
        "Sources/Courier/Courier.docc", "Plugins/CourierPlugins.docc", "Sources/CourierTesting/CourierTesting.docc",
    ]

    static var documents: [String] {
        ["README.md"]
            + catalogs.flatMap { catalog in
                let articles =
                    (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path))
                    ?? []
                return articles.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
            }
    }

    @Test("the README and every article are found")
    func documentsExist() {
        #expect(Self.documents.count >= 11, "\(Self.documents)")
    }

    @Test("every Swift code block is compiled by a sample file", arguments: documents)
    func blocksAreCompiled(_ document: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        let samples = try Self.sampleLines()
        for block in Self.swiftBlocks(in: text) where !Self.isExempt(block) {
            let found = Self.contains(samples, Self.normalized(block))
            #expect(
                found,
                "This block of \(document) is not in any sample file (Tests/*/Docs):\n\(block.joined(separator: "\n"))")
        }
    }

    @Test("the block extraction sees fenced Swift blocks only")
    func extraction() {
        let markdown = "text\n```swift\nlet a = 1\n\n    let b = 2\n```\n```\nnot swift\n```\n```swift\n// Moya\nx\n```"
        let blocks = Self.swiftBlocks(in: markdown)
        #expect(blocks == [["let a = 1", "", "    let b = 2"], ["// Moya", "x"]])
        #expect(Self.normalized(blocks[0]) == ["let a = 1", "let b = 2"])
        #expect(
            Self.normalized(["import Foundation", "enum A {  // sample scaffold", "  private let c = 3"]) == [
                "let c = 3"
            ])
        #expect(Self.isExempt(blocks[1]))
        #expect(Self.isExempt(["// Not compiled on Linux: needs Combine", "import Combine"]))
        #expect(!Self.isExempt(["// Compiled", "let a = 1"]))
        #expect(Self.contains(["x", "let a = 1", "let b = 2", "y"], ["let a = 1", "let b = 2"]))
        #expect(!Self.contains(["let a = 1", "x", "let b = 2"], ["let a = 1", "let b = 2"]))
    }

    // MARK: Helpers

    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let lines = current {
                if trimmed == "```" {
                    blocks.append(lines)
                    current = nil
                } else {
                    current = lines + [line]
                }
            } else if trimmed == "```swift" {
                current = []
            }
        }
        return blocks
    }

    static func isExempt(_ block: [String]) -> Bool {
        guard let first = block.first?.trimmingCharacters(in: .whitespaces) else { return true }
        return first == "// Moya" || first == "// Package.swift" || first == "// CourierCurl"
            || first.hasPrefix("// Not compiled")
    }

    static func normalized(_ lines: [String]) -> [String] {
        lines.map { line in
            var line = line.trimmingCharacters(in: .whitespaces)
            for prefix in ["private ", "fileprivate ", "static "] where line.hasPrefix(prefix) {
                line.removeFirst(prefix.count)
            }
            return line
        }
        .filter { !$0.isEmpty && !$0.hasPrefix("import ") && !$0.hasSuffix("// sample scaffold") }
    }

    static func sampleLines() throws -> [String] {
        var lines: [String] = []
        for folder in sampleFolders {
            let url = root.appendingPathComponent(folder)
            let files = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".swift") }
            for file in files.sorted() {
                let text = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
                lines += normalized(text.components(separatedBy: "\n"))
            }
        }
        return lines
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
