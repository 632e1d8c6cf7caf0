import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLEncoding")
struct URLEncodingTests {
    private func request(_ method: HTTPMethod, url: String = "https://example.com/path") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method.rawValue
        return request
    }

    @Test("sorts keys and escapes reserved characters, leaving ? and / alone")
    func escaping() {
        let query = URLEncoding.query(["b": "x y", "a": "1&2=3", "c": "a/b?c", "d": "caf\u{e9}+#"])
        #expect(query == "a=1%262%3D3&b=x%20y&c=a/b?c&d=caf%C3%A9%2B%23")
    }

    @Test("arrays use brackets, nested dictionaries use key[sub], booleans are 1 and 0")
    func nestedValues() {
        let parameters: [String: any Sendable] = [
            "tags": ["swift", "linux"],
            "filter": ["owner": "ada", "range": ["from": 1, "to": 9]] as [String: any Sendable],
            "on": true, "off": false, "count": 3, "ratio": 0.5,
        ]
        let query = URLEncoding.query(parameters)
        #expect(
            query
                == "count=3&filter%5Bowner%5D=ada&filter%5Brange%5D%5Bfrom%5D=1&filter%5Brange%5D%5Bto%5D=9"
                + "&off=0&on=1&ratio=0.5&tags%5B%5D=swift&tags%5B%5D=linux")
    }

    @Test("default puts GET, HEAD and DELETE parameters in the URL, keeping an existing query")
    func methodDependentQuery() throws {
        for method in [HTTPMethod.get, .head, .delete] {
            let encoded = try URLEncoding.default.encode(
                request(method, url: "https://example.com/p?x=1"), with: ["q": "a b"])
            #expect(encoded.url?.absoluteString == "https://example.com/p?x=1&q=a%20b")
            #expect(encoded.httpBody == nil)
        }
    }

    @Test("default puts POST parameters in a form body with its content type")
    func methodDependentBody() throws {
        let encoded = try URLEncoding.default.encode(request(.post), with: ["name": "Ada L", "admin": true])
        #expect(encoded.url?.absoluteString == "https://example.com/path")
        #expect(String(decoding: encoded.httpBody ?? Data(), as: UTF8.self) == "admin=1&name=Ada%20L")
        #expect(
            encoded.value(forHTTPHeaderField: "Content-Type")
                == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test("queryString and httpBody force their destination")
    func forcedDestinations() throws {
        let inQuery = try URLEncoding.queryString.encode(request(.post), with: ["a": 1])
        #expect(inQuery.url?.query == "a=1")
        #expect(inQuery.httpBody == nil)
        let inBody = try URLEncoding.httpBody.encode(request(.get), with: ["a": 1])
        #expect(inBody.url?.query == nil)
        #expect(inBody.httpBody == Data("a=1".utf8))
    }

    @Test("an existing content type is kept")
    func keepsContentType() throws {
        var original = request(.post)
        original.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let encoded = try URLEncoding.httpBody.encode(original, with: ["a": 1])
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "text/plain")
    }

    @Test("empty parameters leave the request untouched")
    func emptyParameters() throws {
        let encoded = try URLEncoding.default.encode(request(.post), with: [:])
        #expect(encoded.httpBody == nil)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == nil)
    }
}

@Suite("JSONEncoding")
struct JSONEncodingTests {
    @Test("writes a JSON body with its content type")
    func writesBody() throws {
        var request = URLRequest(url: URL(string: "https://example.com")!)
        request.httpMethod = "POST"
        let encoded = try JSONEncoding.default.encode(request, with: ["name": "Ada", "tags": ["a"], "n": 1])
        let object = try JSONSerialization.jsonObject(with: encoded.httpBody ?? Data()) as? [String: Any]
        #expect(object?["name"] as? String == "Ada")
        #expect(object?["tags"] as? [String] == ["a"])
        #expect(object?["n"] as? Int == 1)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test("a value JSON cannot hold is a parameterEncoding error")
    func invalidValue() {
        let request = URLRequest(url: URL(string: "https://example.com")!)
        #expect {
            try JSONEncoding.default.encode(request, with: ["when": Date()])
        } throws: { error in
            guard case .parameterEncoding = error as? CourierError else { return false }
            return "\(error)".contains("cannot be written as JSON")
        }
    }
}
