import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One version constant: the changelog describes it, and the default `User-Agent` names it.
@Suite("CourierRelease: the changelog's newest section, and the default User-Agent")
struct CourierReleaseTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the version is semantic, and the product token names it")
    func shape() {
        let parts = CourierRelease.version.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil }, "\(CourierRelease.version)")
        #expect(CourierRelease.product == "Courier/\(CourierRelease.version)")
    }

    @Test("CHANGELOG.md's newest section is the current version")
    func changelogNamesTheVersion() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        // An "## Unreleased" section may come first, as scripts/check-changelog accepts: what
        // the next version will say, gathered before it has a number.
        let sections = text.components(separatedBy: "\n").filter { $0.hasPrefix("## ") && $0 != "## Unreleased" }
        #expect(sections.first == "## \(CourierRelease.version)", "\(sections.prefix(3))")
    }

    @Test("URLSessionTransport's default configuration sends a User-Agent that names Courier's version")
    func urlSessionUserAgent() throws {
        let agent = URLSessionTransport.defaultUserAgent
        #expect(agent.contains(" \(CourierRelease.product) URLSessionTransport"))
        #expect(agent.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) })
        let headers = URLSessionTransport.defaultConfiguration().httpAdditionalHeaders
        #expect(headers?["User-Agent"] as? String == agent)
    }
}
