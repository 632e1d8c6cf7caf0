import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Endpoint")
struct EndpointTests {
    private func endpoint(task: RequestTask = .requestPlain, url: String = "https://example.com/a")
        -> Endpoint
    {
        Endpoint(
            url: url, sampleResponseClosure: { .networkResponse(200, Data()) }, method: .post,
            task: task, httpHeaderFields: ["Accept": "text/plain"])
    }

    @Test("adding header fields replaces same-named fields case-insensitively")
    func addingHeaders() throws {
        let changed = endpoint().adding(newHTTPHeaderFields: ["accept": "application/json", "X-A": "1"])
        let request = try changed.urlRequest()
        #expect(changed.httpHeaderFields?.count == 2)
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.value(forHTTPHeaderField: "X-A") == "1")
    }

    @Test("replacing the task keeps everything else")
    func replacingTask() throws {
        let changed = endpoint().replacing(task: .requestData(Data("hi".utf8)))
        let request = try changed.urlRequest()
        #expect(request.httpBody == Data("hi".utf8))
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Accept") == "text/plain")
    }

    @Test("an invalid URL is a requestMapping error naming the URL")
    func invalidURL() {
        #expect {
            try endpoint(url: "not a url").urlRequest()
        } throws: { error in
            guard case .requestMapping(let url) = error as? CourierError else { return false }
            return url == "not a url" && "\(error)".contains("not a url")
        }
    }

    @Test("an unencodable body is an encodableMapping error")
    func unencodable() {
        struct Bad: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(1, .init(codingPath: [], debugDescription: "nope"))
            }
        }
        #expect {
            try endpoint(task: .requestJSONEncodable(Bad())).urlRequest()
        } throws: { error in
            if case .encodableMapping = error as? CourierError { return true }
            return false
        }
    }

    @Test("a composite request refuses a body encoding that writes the query")
    func compositeRefusesQueryEncoding() {
        let task = RequestTask.requestCompositeParameters(
            bodyParameters: ["a": 1], bodyEncoding: URLEncoding.queryString, urlParameters: ["b": 2])
        #expect {
            try endpoint(task: task).urlRequest()
        } throws: { error in
            if case .parameterEncoding = error as? CourierError { return true }
            return false
        }
    }

    @Test("a custom JSON encoder is used")
    func customEncoder() throws {
        struct Event: Encodable, Sendable { let startDate: Date }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        let request = try endpoint(
            task: .requestCustomJSONEncodable(Event(startDate: Date(timeIntervalSince1970: 5)), encoder: encoder)
        ).urlRequest()
        #expect(String(decoding: request.httpBody ?? Data(), as: UTF8.self) == #"{"start_date":5}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test("a multipart task gets a multipart content type with a boundary")
    func multipartContentType() throws {
        let task = RequestTask.uploadMultipart([MultipartFormBodyPart(provider: .data(Data()), name: "a")])
        let contentType = try endpoint(task: task).urlRequest().value(forHTTPHeaderField: "Content-Type")
        #expect(contentType?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test(
        "header fields end up exactly as setValue(_:forHTTPHeaderField:) one by one leaves them",
        arguments: [
            [:],
            ["Accept": "application/json"],
            ["accept": "application/json", "content-type": "text/plain; charset=utf-8"],
            ["x-api-key": "k1", "ETag": "\"abc\"", "WWW-Authenticate": "Bearer", "x_custom_1": "v"],
            ["accept": "a", "ACCEPT": "b", "Accept": "c"],
            ["X-Unicode-Value": "caf\u{e9} \u{1F600}", "user-agent": "Courier/1.0 (Linux)"],
            ["x": ""],
        ] as [[String: String]])
    func headerFieldsMatchSetValue(fields: [String: String]) throws {
        let endpoint = Endpoint(
            url: "https://example.com/a", sampleResponseClosure: { .networkResponse(200, Data()) }, method: .get,
            task: .requestPlain, httpHeaderFields: fields)
        var expected = URLRequest(url: URL(string: "https://example.com/a")!)
        for (name, value) in fields {
            expected.setValue(value, forHTTPHeaderField: name)
        }
        let request = try endpoint.urlRequest()
        #expect(request.allHTTPHeaderFields == expected.allHTTPHeaderFields)
        #expect(request.httpMethod == "GET")
    }

    @Test(
        "header fields that Foundation would drop or that are no HTTP token are refused, naming the header",
        arguments: [
            (["X-Folded": "one\r\n two", "X-Plain": "p"], "X-Folded"),
            (["X-Bad": "a\nb", "X-Plain": "p"], "X-Bad"),
            (["X-Nul": "a\u{0}b"], "X-Nul"),
            (["X-Caf\u{e9}": "1"], "X-Caf"),
            (["": "empty name", "x": ""], "\"\" (empty)"),
        ] as [([String: String], String)])
    func invalidHeaderFieldsRefused(fields: [String: String], named: String) {
        let endpoint = Endpoint(
            url: "https://example.com/a?key=secret", sampleResponseClosure: { .networkResponse(200, Data()) },
            method: .get, task: .requestPlain, httpHeaderFields: fields)
        #expect {
            try endpoint.urlRequest()
        } throws: { error in
            guard case .underlying(let refusal as RequestValidationError, nil) = error as? CourierError else {
                return false
            }
            let text = refusal.description
            return text.contains(named) && !text.contains("secret") && !text.contains("two")
                && refusal.url == "https://example.com/a"
        }
    }
}
