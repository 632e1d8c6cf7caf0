import Courier
import Foundation
import Testing

@Suite("DPoP htu")
struct DPoPTargetURITests {
    @Test(
        "htu drops query, fragment, user information and the default port, and lowercases scheme and host",
        arguments: [
            ("HTTPS://Server.Example.COM:443/Path/To?q=1#frag", "https://server.example.com/Path/To"),
            ("https://server.example.com", "https://server.example.com/"),
            ("http://server.example.com:80/a", "http://server.example.com/a"),
            ("http://server.example.com:443/a", "http://server.example.com:443/a"),
            ("https://server.example.com:80/a", "https://server.example.com:80/a"),
            ("https://server.example.com:8443/a/", "https://server.example.com:8443/a/"),
            ("https://user:password@server.example.com/a", "https://server.example.com/a"),
            ("https://server.example.com/a%2fb%c3%a9?x", "https://server.example.com/a%2Fb%C3%A9"),
            ("http://127.0.0.1:8080/token", "http://127.0.0.1:8080/token"),
            ("http://[::1]:8080/token", "http://[::1]:8080/token"),
        ])
    func normalisation(url: String, htu: String) throws {
        #expect(try DPoPProofBuilder.targetURI(for: URL(string: url)!) == htu)
    }

    @Test(
        "only absolute http and https URLs with a host can be signed",
        arguments: ["ftp://h/x", "file:///tmp/x", "/path", "mailto:a@b.c"])
    func refused(url: String) {
        #expect(throws: DPoPError.self) { try DPoPProofBuilder.targetURI(for: URL(string: url)!) }
    }

    @Test("a relative URL is resolved against its base")
    func relative() throws {
        let url = URL(string: "v1/me?x=1", relativeTo: URL(string: "https://API.example.com/base/")!)!
        #expect(try DPoPProofBuilder.targetURI(for: url) == "https://api.example.com/base/v1/me")
    }
}
