import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Seeded fuzzing of the file names a hostile server suggests (`Content-Disposition` and
/// the URL): placed with ``DownloadPlacement/suggestedDestination(in:fallbackName:options:)``,
/// nothing outside the destination folder changes and no directory is ever removed; placed
/// with the unsafe `appendingPathComponent(suggestedFilename)` pattern, still no directory
/// is removed or replaced.
@Suite("Fuzzing suggested file names")
struct SuggestedFilenameFuzzTests {
    static let fragments = [
        "..", ".", "/", "\\", "", "a", "report", ".pdf", ".txt", "%2e%2e", "%2f", "../", "..\\", " ", "\t", "\u{0}",
        "\r\n", "\u{7F}", "\u{85}", "\u{202E}", "\u{2066}", "é", "📄", "~", "$HOME", "*", "?", "\"", "'", ";",
        "filename=", "sub", "keep.txt", "sibling", "outside.txt", "downloads", String(repeating: "x", count: 120),
        String(repeating: "é", count: 90),
    ]

    /// A directory tree with a download folder and things around it that must survive.
    struct Sandbox {
        let root: URL
        let downloads: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-name-fuzz-\(UUID())")
            downloads = root.appendingPathComponent("downloads")
            try reset()
        }

        /// Puts the tree back as it started.
        func reset() throws {
            let fileManager = FileManager.default
            try? fileManager.removeItem(at: root)
            try fileManager.createDirectory(
                at: downloads.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try fileManager.createDirectory(
                at: root.appendingPathComponent("sibling"), withIntermediateDirectories: true)
            try Data("outside".utf8).write(to: root.appendingPathComponent("outside.txt"))
            try Data("sibling".utf8).write(to: root.appendingPathComponent("sibling/file.txt"))
            try Data("keep".utf8).write(to: downloads.appendingPathComponent("sub/keep.txt"))
        }

        /// Every path under `root` (relative), with `nil` for a directory or a file's bytes.
        func snapshot(excludingDownloads: Bool) throws -> [String: Data?] {
            var result: [String: Data?] = [:]
            let prefix = root.standardizedFileURL.path + "/"
            guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return result }
            while let relative = enumerator.nextObject() as? String {
                if excludingDownloads, relative == "downloads" || relative.hasPrefix("downloads/") { continue }
                let path = prefix + relative
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                result[relative] = isDirectory.boolValue ? .some(nil) : FileManager.default.contents(atPath: path)
            }
            return result
        }

        /// Whether every directory the tree started with is still a directory, with its files.
        func directoriesIntact() -> Bool {
            let fileManager = FileManager.default
            for directory in [
                root, downloads, downloads.appendingPathComponent("sub"), root.appendingPathComponent("sibling"),
            ] {
                var isDirectory: ObjCBool = false
                guard fileManager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
                else { return false }
            }
            return fileManager.contents(atPath: downloads.appendingPathComponent("sub/keep.txt").path)
                == Data("keep".utf8)
        }

        func temporaryFile() throws -> URL {
            let url = root.appendingPathComponent("courier-download-\(UUID())")
            try Data("payload".utf8).write(to: url)
            return url
        }
    }

    /// A name built from fragments, and a response that suggests it one of several ways.
    static func hostileResponse(using random: inout SeededRandomNumberGenerator) -> (
        name: String, response: HTTPURLResponse
    ) {
        let count = Int.random(in: 0...6, using: &random)
        let name = (0..<count).map { _ in fragments.randomElement(using: &random)! }.joined()
        let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let disposition: String? =
            switch Int.random(in: 0..<5, using: &random) {
            case 0: "attachment; filename=\"\(escaped)\""
            case 1: "attachment; filename=\(name)"
            case 2: "attachment; filename*=UTF-8''\(encoded)"
            case 3: name
            default: nil
            }
        let url = URL(string: "https://example.com/files/\(encoded)") ?? URL(string: "https://example.com/")!
        let response = HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: disposition.map { ["Content-Disposition": $0] })!
        return (name, response)
    }

    /// Runs `fuzz` on a thread of its own (thousands of file operations would otherwise hold
    /// one of the few threads every other test's tasks run on) and returns what it found wrong.
    static func offThePool(_ fuzz: @escaping @Sendable () throws -> [String]) async throws -> [String] {
        try await BlockingIO.run { _ in try fuzz() }
    }

    @Test("3,000 hostile names through suggestedDestination: the file lands in the folder, nothing else changes")
    func safeDestination() async throws {
        let problems = try await Self.offThePool {
            let sandbox = try Sandbox()
            defer { try? FileManager.default.removeItem(at: sandbox.root) }
            let outside = try sandbox.snapshot(excludingDownloads: true)
            let destination = DownloadPlacement.suggestedDestination(
                in: sandbox.downloads, options: [.removePreviousFile, .createIntermediateDirectories])
            var random = SeededRandomNumberGenerator(seed: 0xC0_FFEE)
            var problems: [String] = []
            for index in 0..<3000 {
                let (name, response) = Self.hostileResponse(using: &random)
                let input = "input \(index) \(name.debugDescription)"
                let temporary = try sandbox.temporaryFile()
                let (target, _) = destination(temporary, response)
                let fileName = target.lastPathComponent
                if target.deletingLastPathComponent().standardizedFileURL.path
                    != sandbox.downloads.standardizedFileURL.path
                {
                    problems.append("\(input): placed outside the folder at \(target.path)")
                }
                if fileName.isEmpty || fileName.hasPrefix(".") || fileName.contains("/") || fileName.contains("\\")
                    || fileName.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
                    || fileName.utf8.count > 255
                {
                    problems.append("\(input): unsafe name \(fileName.debugDescription)")
                }
                // Placing may fail (a name that is the folder `sub`), but never outside the folder.
                _ = try? DownloadPlacement.move(temporary, response: response, destination: destination)
                if FileManager.default.fileExists(atPath: temporary.path) {
                    problems.append("\(input): the temporary file was left behind")
                }
                if !sandbox.directoriesIntact() {
                    problems.append("\(input): a directory was removed")
                    break
                }
            }
            if try sandbox.snapshot(excludingDownloads: true) != outside {
                problems.append("something outside the download folder changed")
            }
            return problems
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test("3,000 hostile names through the unsafe appendingPathComponent pattern: no directory is ever removed")
    func unsafePatternNeverRemovesDirectories() async throws {
        let problems = try await Self.offThePool {
            let sandbox = try Sandbox()
            defer { try? FileManager.default.removeItem(at: sandbox.root) }
            var random = SeededRandomNumberGenerator(seed: 0xBAD_F11E)
            var directoryErrors = 0
            var problems: [String] = []
            for index in 0..<3000 {
                let (name, response) = Self.hostileResponse(using: &random)
                let temporary = try sandbox.temporaryFile()
                do {
                    _ = try DownloadPlacement.move(temporary, response: response) { _, response in
                        (
                            sandbox.downloads.appendingPathComponent(response.suggestedFilename ?? "x"),
                            [.removePreviousFile]
                        )
                    }
                } catch is DownloadPlacementError {
                    directoryErrors += 1
                } catch {
                    // Another file-system error (a missing folder, say): also fine.
                }
                if !sandbox.directoriesIntact() {
                    problems.append("input \(index) \(name.debugDescription): a directory was removed or replaced")
                    break
                }
                // The unsafe pattern may overwrite files next to the folder; start clean now and then.
                if index % 50 == 49 { try sandbox.reset() }
            }
            // `..`, empty names and the like occur often among these inputs.
            if directoryErrors == 0 { problems.append("no input named a directory: the fuzzing is too tame") }
            return problems
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }
}
