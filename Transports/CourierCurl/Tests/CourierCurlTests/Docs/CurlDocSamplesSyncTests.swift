// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Foundation
import Testing

/// The Swift blocks that start with `// CourierCurl` — in the root README (whose own docs
/// test skips them, since the root package cannot import this one) and in every block of
/// this package's DocC catalog — appear line for line in `CurlDocSamples.swift`, which this
/// target compiles. Lines are compared without indentation, blank lines, `import` lines,
/// the `// CourierCurl` marker and the samples' `// sample scaffold` lines.
@Suite("CourierCurl documentation samples")
struct CurlDocSamplesSyncTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let package = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let repository = package.deletingLastPathComponent().deletingLastPathComponent()
    static let catalog = package.appendingPathComponent("Sources/CourierCurl/CourierCurl.docc")

    /// Every checked block: the README's `// CourierCurl` blocks, and the catalog's Swift blocks.
    static func blocks() throws -> [(document: String, lines: [String])] {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks = swiftBlocks(in: readme).filter { $0.first == "// CourierCurl" }.map { ("README.md", $0) }
        for article in try FileManager.default.contentsOfDirectory(atPath: catalog.path).sorted()
        where article.hasSuffix(".md") {
            let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
            blocks += swiftBlocks(in: text).filter { $0.first != "// Package.swift" }.map { (article, $0) }
        }
        return blocks
    }

    @Test("the README and the catalog show CurlTransport samples")
    func found() throws {
        let documents = Set(try Self.blocks().map(\.document))
        #expect(documents.contains("README.md"))
        #expect(documents.contains("ChoosingCurlTransport.md"))
    }

    @Test("every sample in the docs is compiled, line for line")
    func compiled() throws {
        let samples = Self.normalized(
            try String(contentsOf: Self.here.appendingPathComponent("CurlDocSamples.swift"), encoding: .utf8)
                .components(separatedBy: "\n"))
        for (document, block) in try Self.blocks() {
            let lines = Self.normalized(block)
            #expect(Self.contains(samples, lines), "\(document): \(lines.joined(separator: " / "))")
        }
    }

    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current != nil {
                if trimmed == "```" {
                    blocks.append(current!)
                    current = nil
                } else {
                    current!.append(trimmed)
                }
            } else if trimmed == "```swift" {
                current = []
            }
        }
        return blocks
    }

    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter {
                !$0.isEmpty && !$0.hasPrefix("import ") && $0 != "// CourierCurl" && !$0.hasSuffix("// sample scaffold")
            }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}

#endif
