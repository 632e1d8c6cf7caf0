import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Endpoint is Equatable and Hashable by the request it makes, as in Moya")
struct EndpointEqualityTests {
    func endpoint(
        _ url: String = "https://api.example.com/items", method: HTTPMethod = .get, task: RequestTask = .requestPlain,
        headers: [String: String]? = ["Accept": "application/json"], sample: String = "a"
    ) -> Endpoint {
        Endpoint(
            url: url, sampleResponseClosure: { .networkResponse(200, Data(sample.utf8)) }, method: method, task: task,
            httpHeaderFields: headers)
    }

    @Test("the same target makes equal endpoints with equal hashes; the sample response does not count")
    func sameTarget() {
        let a = Provider<TestAPI>.defaultEndpointMapping(for: .search(query: "swift"))
        let b = Provider<TestAPI>.defaultEndpointMapping(for: .search(query: "swift"))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(endpoint(sample: "a") == endpoint(sample: "b"))
        #expect(Set([a, b, Provider<TestAPI>.defaultEndpointMapping(for: .search(query: "linux"))]).count == 2)
    }

    @Test("URL, method, headers, parameters and body all count")
    func differences() {
        let base = endpoint()
        #expect(base != endpoint("https://api.example.com/other"))
        #expect(base != endpoint(method: .post))
        #expect(base != endpoint(headers: ["Accept": "text/plain"]))
        #expect(base != endpoint(headers: nil))
        #expect(
            endpoint(task: .requestParameters(parameters: ["q": "a"], encoding: URLEncoding.default))
                != endpoint(task: .requestParameters(parameters: ["q": "b"], encoding: URLEncoding.default)))
        #expect(endpoint(task: .requestData(Data([1]))) != endpoint(task: .requestData(Data([2]))))
        #expect(endpoint(task: .requestData(Data([1]))) == endpoint(task: .requestData(Data([1]))))
        #expect(base.adding(newHTTPHeaderFields: ["X-A": "1"]) != base)
    }

    @Test("multipart endpoints compare by their parts, not by the random boundary each request draws")
    func multipart() {
        let part = MultipartFormData(provider: .data(Data("x".utf8)), name: "f", fileName: "f.txt")
        let other = MultipartFormData(provider: .data(Data("y".utf8)), name: "f", fileName: "f.txt")
        let a = endpoint(method: .post, task: .uploadMultipart([part]))
        #expect(a == endpoint(method: .post, task: .uploadMultipart([part])))
        #expect(a.hashValue == endpoint(method: .post, task: .uploadMultipart([part])).hashValue)
        #expect(a != endpoint(method: .post, task: .uploadMultipart([other])))
        #expect(
            endpoint(method: .post, task: .uploadCompositeMultipart([part], urlParameters: ["v": 1]))
                != endpoint(method: .post, task: .uploadCompositeMultipart([part], urlParameters: ["v": 2])))
    }

    @Test("file uploads compare by file")
    func files() {
        let a = URL(fileURLWithPath: "/tmp/a")
        #expect(endpoint(task: .uploadFile(a)) == endpoint(task: .uploadFile(a)))
        #expect(endpoint(task: .uploadFile(a)) != endpoint(task: .uploadFile(URL(fileURLWithPath: "/tmp/b"))))
    }

    @Test("endpoints whose request cannot be built compare by URL string, method and headers")
    func unbuildable() {
        #expect(endpoint("not a url") == endpoint("not a url"))
        #expect(endpoint("not a url") != endpoint("not a url either"))
        #expect(endpoint("not a url") != endpoint())
    }
}
