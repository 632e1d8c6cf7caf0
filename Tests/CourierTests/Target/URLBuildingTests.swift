import Courier
import Foundation
import Testing

private struct PathTarget: TargetType {
    var baseURL: URL
    var path: String
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

@Suite("URL building")
struct URLBuildingTests {
    @Test(
        "joins base URL and path",
        arguments: [
            ("https://api.example.com", "", "https://api.example.com"),
            ("https://api.example.com/", "users", "https://api.example.com/users"),
            ("https://api.example.com", "/users", "https://api.example.com/users"),
            ("https://api.example.com/", "/users/", "https://api.example.com/users/"),
            ("https://api.example.com/v1", "users/1", "https://api.example.com/v1/users/1"),
            ("https://api.example.com/v1/", "//users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1?key=abc", "users", "https://api.example.com/v1/users?key=abc"),
            ("https://api.example.com/v1/?key=a%20b", "/users", "https://api.example.com/v1/users?key=a%20b"),
            ("https://api.example.com", "files/my file?.txt", "https://api.example.com/files/my%20file%3F.txt"),
            ("https://api.example.com", "tags/#swift", "https://api.example.com/tags/%23swift"),
            ("https://api.example.com", "caf\u{e9}", "https://api.example.com/caf%C3%A9"),
            ("https://api.example.com", "a;b/100%", "https://api.example.com/a%3Bb/100%25"),
            (
                "https://api.example.com/v1/", "~user/a-b_c.d!$&'()*+,=:@",
                "https://api.example.com/v1/~user/a-b_c.d!$&'()*+,=:@"
            ),
        ])
    func joins(base: String, path: String, expected: String) {
        let target = PathTarget(baseURL: URL(string: base)!, path: path)
        #expect(URL(target: target).absoluteString == expected)
    }

    @Test(
        "joins are remembered per base URL and path: a path under another base, or the hundredth new path, still joins right"
    )
    func rememberedJoins() async {
        let bases = ["https://api.example.com", "https://api.example.com/v2/", "https://other.example.org/v1?key=k"]
        // Many tasks at once, each joining the same paths under every base, past the number of
        // joins remembered, twice over.
        await withTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var mismatches: [String] = []
                    for round in 0..<2 {
                        for number in 0..<300 {
                            let path = "items/\((number + worker * 37 + round) % 300)"
                            for base in bases {
                                let joined = URL(target: PathTarget(baseURL: URL(string: base)!, path: path))
                                let expected: String
                                switch base {
                                case "https://api.example.com": expected = "https://api.example.com/\(path)"
                                case "https://api.example.com/v2/": expected = "https://api.example.com/v2/\(path)"
                                default: expected = "https://other.example.org/v1/\(path)?key=k"
                                }
                                if joined.absoluteString != expected { mismatches.append(joined.absoluteString) }
                            }
                        }
                    }
                    return mismatches
                }
            }
            for await mismatches in group {
                #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
            }
        }
    }
}
