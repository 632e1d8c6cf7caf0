import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLEncoding's Alamofire options")
struct URLEncodingOptionsTests {
    let parameters: [String: any Sendable] = ["ids": [1, 2], "all": true, "filter": ["tags": ["a"]]]

    @Test(
        "array encodings",
        arguments: [
            (URLEncoding.ArrayEncoding.brackets, "all=1&filter%5Btags%5D%5B%5D=a&ids%5B%5D=1&ids%5B%5D=2"),
            (.noBrackets, "all=1&filter%5Btags%5D=a&ids=1&ids=2"),
            (.indexInBrackets, "all=1&filter%5Btags%5D%5B0%5D=a&ids%5B0%5D=1&ids%5B1%5D=2"),
        ])
    func arrays(encoding: URLEncoding.ArrayEncoding, expected: String) {
        #expect(URLEncoding(arrayEncoding: encoding).query(parameters) == expected)
    }

    @Test("bool encodings: numeric by default, literal on request")
    func bools() {
        #expect(URLEncoding(boolEncoding: .numeric).query(["a": true, "b": false]) == "a=1&b=0")
        #expect(URLEncoding(boolEncoding: .literal).query(["a": true, "b": false]) == "a=true&b=false")
    }

    @Test("the defaults are unchanged: brackets, numeric, method-dependent")
    func defaults() {
        let encoding = URLEncoding()
        #expect(encoding.arrayEncoding == .brackets)
        #expect(encoding.boolEncoding == .numeric)
        #expect(encoding.destination == .methodDependent)
        #expect(URLEncoding.default.query(parameters) == URLEncoding.query(parameters))
        #expect(URLEncoding.queryString.arrayEncoding == .brackets)
    }

    @Test("the options apply in the query string and in the body")
    func applied() throws {
        let request = URLRequest(url: URL(string: "https://example.com/s")!)
        let inURL = try URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal)
            .encode(request, with: ["ids": [1, 2], "all": true])
        #expect(inURL.url?.query == "all=true&ids=1&ids=2")

        var post = request
        post.httpMethod = "POST"
        let inBody = try URLEncoding(destination: .httpBody, arrayEncoding: .indexInBrackets).encode(
            post, with: ["ids": [3]])
        #expect(inBody.httpBody == Data("ids%5B0%5D=3".utf8))
    }

    @Test("a target passes the options through requestParameters")
    func throughTarget() throws {
        let endpoint = Endpoint(
            url: "https://example.com/s", sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
            task: .requestParameters(
                parameters: ["ids": [1, 2]], encoding: URLEncoding(arrayEncoding: .noBrackets)),
            httpHeaderFields: nil)
        #expect(try endpoint.urlRequest().url?.query == "ids=1&ids=2")
    }
}
