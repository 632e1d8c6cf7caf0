import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A relative endpoint URL fails the first request and says why")
struct EndpointRelativeURLTests {
    private enum Items: TargetType {
        case item
        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "items/7" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    /// What a Moya test suite writes: the target's path as the endpoint's URL.
    private static let relativeEndpoints: Provider<Items>.EndpointClosure = { target in
        Endpoint(
            url: target.path, sampleResponseClosure: { .networkResponse(200, Data("{}".utf8)) },
            method: target.method, task: target.task, httpHeaderFields: target.headers)
    }

    @Test("urlRequest() throws requestMapping naming the URL, and the description tells what to write")
    func urlRequestExplains() throws {
        let endpoint = Self.relativeEndpoints(.item)

        #expect(throws: CourierError.requestMapping("items/7")) { try endpoint.urlRequest() }
        let error = CourierError.requestMapping("items/7")
        #expect(
            error.description
                == #"Could not build a URL request from "items/7": it is a relative URL. Courier sends absolute URLs only, stubbed requests too (Moya accepted a relative one for a stub): make the endpoint's URL with URL(target: target), as Provider.defaultEndpointMapping(for:) does."#
        )
    }

    @Test("a stubbed provider fails its first request with it, before any plugin sees a request")
    func stubbedProviderFailsAtTheFirstRequest() async {
        let willSend = CallCounter()
        let plugin = ClosurePlugin(willSend: { _ = willSend.increment() })
        let provider = Provider<Items>(
            endpointClosure: Self.relativeEndpoints, stubClosure: Provider.immediatelyStub, plugins: [plugin])

        let error = await #expect(throws: CourierError.self) { try await provider.request(.item) }

        #expect(error == .requestMapping("items/7"))
        #expect(error?.description.contains("relative URL") == true)
        #expect(willSend.value == 0)
    }

    @Test("the fix the description names works: URL(target:) makes an absolute URL, and the stub answers")
    func theFixWorks() async throws {
        let provider = Provider<Items>(
            endpointClosure: { target in
                Endpoint(
                    url: URL(target: target).absoluteString,
                    sampleResponseClosure: { .networkResponse(200, Data("{}".utf8)) }, method: target.method,
                    task: target.task, httpHeaderFields: target.headers)
            }, stubClosure: Provider.immediatelyStub)

        let response = try await provider.request(.item)

        #expect(response.request?.url?.absoluteString == "https://api.example.com/items/7")
    }

    @Test("an unparseable URL says so; an absolute URL a request closure refused gets no guess")
    func otherURLs() {
        #expect(
            CourierError.requestMapping("http://[::1").description
                == #"Could not build a URL request from "http://[::1": it is not a valid URL."#)
        #expect(
            CourierError.requestMapping("https://api.example.com/a").description
                == #"Could not build a URL request from "https://api.example.com/a"."#)
    }
}

/// A plugin whose `willSend` calls a closure.
private struct ClosurePlugin: PluginType {
    let willSend: @Sendable () -> Void
    func willSend(_ request: URLRequest, target: any TargetType) { willSend() }
}
