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
}
