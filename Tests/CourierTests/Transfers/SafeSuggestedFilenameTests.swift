import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("HTTPURLResponse.safeSuggestedFilename and DownloadPlacement.suggestedDestination")
struct SafeSuggestedFilenameTests {
    static func response(disposition: String?, url: String = "https://example.com/files/") -> HTTPURLResponse {
        HTTPURLResponse(
            url: URL(string: url)!, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: disposition.map { ["Content-Disposition": $0] })!
    }

    @Test(
        "names a server can send come back as one visible, non-empty path component",
        arguments: [
            ("report.pdf", "report.pdf"),
            ("..", nil),
            (".", nil),
            ("", nil),
            ("...", nil),
            ("../../etc/passwd", "passwd"),
            ("..\\..\\boot.ini", "boot.ini"),
            ("folder/", nil),
            (".bashrc", "bashrc"),
            ("  spaced name.txt  ", "spaced name.txt"),
            ("tab\there\u{0}.txt", "tabhere.txt"),
            ("line\r\nX-Injected: 1", "lineX-Injected: 1"),
            ("invoice\u{202E}fdp.exe", "invoicefdp.exe"),
            ("résumé 📄.pdf", "résumé 📄.pdf"),
        ] as [(String, String?)])
    func sanitised(input: String, expected: String?) {
        #expect(HTTPURLResponse.safeFilename(input) == expected)
    }

    @Test("a long name is cut to 255 bytes of UTF-8 on a character boundary, keeping its extension")
    func longName() throws {
        let name = try #require(HTTPURLResponse.safeFilename(String(repeating: "é", count: 300) + ".tar.gz"))
        #expect(name.utf8.count <= 255)
        #expect(name.hasSuffix(".gz"))
        #expect(name.hasPrefix("éé"))
        let plain = try #require(HTTPURLResponse.safeFilename(String(repeating: "x", count: 1000)))
        #expect(plain.utf8.count == 255)
    }

    @Test("the response's suggestion is read from Content-Disposition and made safe")
    func fromResponse() {
        #expect(Self.response(disposition: #"attachment; filename="..""#).safeSuggestedFilename == nil)
        #expect(Self.response(disposition: #"attachment; filename="""#).safeSuggestedFilename == nil)
        #expect(Self.response(disposition: #"attachment; filename="q3.csv""#).safeSuggestedFilename == "q3.csv")
    }

    @Test("suggestedDestination keeps the file in its folder and falls back when nothing is usable")
    func destination() {
        let folder = URL(fileURLWithPath: "/tmp/courier-downloads")
        let destination = DownloadPlacement.suggestedDestination(in: folder, fallbackName: "fallback.bin")
        let temporary = URL(fileURLWithPath: "/tmp/x")

        let dotdot = destination(temporary, Self.response(disposition: #"attachment; filename="..""#))
        #expect(dotdot.destinationURL == folder.appendingPathComponent("fallback.bin"))
        #expect(dotdot.options == [.createIntermediateDirectories])
        let named = destination(temporary, Self.response(disposition: #"attachment; filename="a/b/c.txt""#))
        #expect(named.destinationURL.deletingLastPathComponent().path == folder.path)

        let unusableFallback = DownloadPlacement.suggestedDestination(in: folder, fallbackName: "../..")
        #expect(
            unusableFallback(temporary, Self.response(disposition: #"attachment; filename="""#)).destinationURL
                == folder.appendingPathComponent("download"))
    }
}
