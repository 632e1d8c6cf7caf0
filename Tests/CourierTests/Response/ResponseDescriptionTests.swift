import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Response description")
struct ResponseDescriptionTests {
    @Test("a response describes itself as Moya's does: status code and body size (description was missing before)")
    func moyasDescription() {
        let response = Response(statusCode: 200, data: Data(repeating: 0x41, count: 42))
        #expect(response.description == "Status Code: 200, Data Length: 42")
        #expect(response.debugDescription == response.description)
        #expect(String(describing: response) == "Status Code: 200, Data Length: 42")
        #expect("\(response)" == "Status Code: 200, Data Length: 42")
    }

    @Test("the description never holds the request's headers, its URL's secrets or the body")
    func noSecrets() {
        var request = URLRequest(url: URL(string: "https://api.example.com/me?access_token=at-SECRET-QUERY")!)
        request.setValue("Bearer at-SECRET-HEADER", forHTTPHeaderField: "Authorization")
        let http = HTTPURLResponse(
            url: request.url!, statusCode: 401, httpVersion: "HTTP/1.1",
            headerFields: ["Set-Cookie": "session=at-SECRET-COOKIE"])
        let response = Response(
            statusCode: 401, data: Data(#"{"access_token":"at-SECRET-BODY"}"#.utf8), request: request, response: http)
        for text in [response.description, response.debugDescription, "\(response)", String(reflecting: response)] {
            #expect(!text.contains("SECRET"), "\(text)")
        }
        #expect(response.description == "Status Code: 401, Data Length: 33")
    }
}
