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
}
