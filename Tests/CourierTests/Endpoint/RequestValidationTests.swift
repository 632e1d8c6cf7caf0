import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A target whose method and headers the test chooses.
private struct RawTarget: TargetType {
    var method: HTTPMethod = .get
    var headers: [String: String]? = nil
    var baseURL: URL { URL(string: "https://api.example.com/v1?api_key=SECRET-KEY")! }
    var path: String { "items" }
    var task: RequestTask { .requestPlain }
}

/// Sets one header in `prepare`, the way a plugin would.
private struct HeaderPlugin: PluginType {
    let name: String
    let value: String
    /// Through `allHTTPHeaderFields` (kept as is) rather than `setValue` (which drops a value
    /// holding CR or LF on Linux).
    var replacingAll = false

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        var request = request
        if replacingAll {
            var fields = request.allHTTPHeaderFields ?? [:]
            fields[name] = value
            request.allHTTPHeaderFields = fields
        } else {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }
}

/// Counts `willSend` calls: a refused request is never announced as sent.
private final class WillSendCounter: PluginType, Sendable {
    private let count = CallCounter()
    func willSend(_ request: URLRequest, target: any TargetType) { count.increment() }
    var value: Int { count.value }
}

@Suite("Request validation")
struct RequestValidationTests {
    /// The refusal inside `result`, if it is one.
    private func refusalIn(_ result: Result<Response, CourierError>) -> RequestValidationError? {
        guard case .failure(.underlying(let refusal as RequestValidationError, nil)) = result else { return nil }
        return refusal
    }

    private func send(
        _ target: RawTarget, plugins: [any PluginType] = [], stubbed: Bool = false,
        endpointClosure: Provider<RawTarget>.EndpointClosure? = nil
    ) async -> (Result<Response, CourierError>, ScriptedTransport, WillSendCounter) {
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)
        let counter = WillSendCounter()
        let provider = Provider<RawTarget>(
            endpointClosure: endpointClosure ?? Provider.defaultEndpointMapping,
            stubClosure: stubbed ? Provider.immediatelyStub : Provider.neverStub,
            transport: transport, plugins: plugins + [counter])
        do {
            return (.success(try await provider.request(target)), transport, counter)
        } catch {
            return (.failure(error), transport, counter)
        }
    }

    @Test("a header name with CR/LF from the target is refused before anything is sent, naming it, never the value")
    func injectedHeaderName() async throws {
        let (result, transport, counter) = await send(RawTarget(headers: ["X-Meta\r\nX-Injected": "SECRET-VALUE"]))
        let refusal = try #require(refusalIn(result))
        #expect(refusal.reason == .invalidHeaderName(validPrefix: "X-Meta", invalidCharacter: "\r"))
        #expect(refusal.url == "https://api.example.com/v1/items")
        for text in [refusal.description, "\(try #require(result.failure))"] {
            #expect(text.contains("X-Meta"))
            #expect(text.contains("U+000D"))
            #expect(!text.contains("SECRET"), "\(text)")
            #expect(!text.contains("Injected"), "nothing after the bad character is shown")
        }
        #expect(transport.requests.isEmpty)
        #expect(counter.value == 0)
    }

    @Test(
        "a header value with CR, LF or NUL is refused, not silently dropped or changed",
        arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b", "\r\n"])
    func injectedHeaderValue(value: String) async throws {
        let (result, transport, _) = await send(RawTarget(headers: ["X-Note": value, "Accept": "text/plain"]))
        let refusal = try #require(refusalIn(result))
        guard case .invalidHeaderValue(let name, _) = refusal.reason else {
            Issue.record("unexpected reason \(refusal.reason)")
            return
        }
        #expect(name == "X-Note")
        #expect(!refusal.description.contains("Injected"))
        #expect(transport.requests.isEmpty)
    }

    @Test("headers from the endpoint closure and from plugins are checked too, and stubs refuse as well")
    func everySource() async throws {
        let bad = "Bad Name"
        let fromEndpoint = await send(
            RawTarget(),
            endpointClosure: { target in
                Provider<RawTarget>.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: [bad: "1"])
            })
        #expect(refusalIn(fromEndpoint.0) != nil)
        #expect(fromEndpoint.1.requests.isEmpty)

        let fromPlugin = await send(RawTarget(), plugins: [HeaderPlugin(name: "X-A\nX-B", value: "1")])
        #expect(refusalIn(fromPlugin.0)?.reason == .invalidHeaderName(validPrefix: "X-A", invalidCharacter: "\n"))
        #expect(fromPlugin.1.requests.isEmpty)

        let valueFromPlugin = await send(
            RawTarget(), plugins: [HeaderPlugin(name: "X-Trace", value: "1\r\nX-Evil: 1", replacingAll: true)])
        #expect(
            refusalIn(valueFromPlugin.0)?.reason == .invalidHeaderValue(headerName: "X-Trace", invalidCharacter: "\r"))
        #expect(valueFromPlugin.1.requests.isEmpty)

        let stubbed = await send(RawTarget(headers: ["X:Y": "1"]), stubbed: true)
        #expect(refusalIn(stubbed.0)?.reason == .invalidHeaderName(validPrefix: "X", invalidCharacter: ":"))
        #expect(stubbed.2.value == 0)
    }

    @Test(
        "a method that is not an HTTP token is refused before anything is sent",
        arguments: ["GET /admin HTTP/1.1\r\nHost: evil\r\n\r\nGET", "GET\r\n", "PO ST", "", "GET\u{0}", "G(E)T", "GÉT"])
    func smuggledMethod(method: String) async throws {
        for stubbed in [false, true] {
            let (result, transport, counter) = await send(
                RawTarget(method: HTTPMethod(rawValue: method)), stubbed: stubbed)
            let refusal = try #require(refusalIn(result), "method \(method.debugDescription)")
            guard case .invalidMethod = refusal.reason else {
                Issue.record("unexpected reason \(refusal.reason)")
                continue
            }
            #expect(!refusal.description.contains("admin"))
            #expect(transport.requests.isEmpty)
            #expect(counter.value == 0)
        }
    }

    @Test("every method and header name made of token characters goes out as asked")
    func unusualButValid() async throws {
        for method in ["PROPFIND", "M-SEARCH", "QUERY", "X!#$%&'*+.^_`|~9"] {
            let (result, transport, _) = await send(RawTarget(method: HTTPMethod(rawValue: method)))
            #expect(try result.get().statusCode == 200)
            #expect(transport.requests.first?.httpMethod == method)
        }
        let name = "X-A!#$%&'*+.^_`|~1"
        let (result, transport, _) = await send(RawTarget(headers: [name: "v\tw é"]))
        #expect(try result.get().statusCode == 200)
        #expect(transport.requests.first?.value(forHTTPHeaderField: name) == "v\tw é")
    }

    @Test("a stored token holding CR/LF is refused where the session loads it, never sent unsigned, never shown")
    func tokenWithLineBreak() async throws {
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)
        let session = AuthSession(
            store: InMemoryTokenStore(OAuthToken(accessToken: "SECRET\r\nX-Injected: 1", refreshToken: "r")),
            refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        let provider = RefreshableProvider<RawTarget>(auth: session, transport: transport)
        let error = await #expect(throws: CourierError.self) { try await provider.request(RawTarget()) }
        guard case .authentication(.storeUnavailable(let refusal as TokenValidationError))? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(refusal == TokenValidationError(field: .accessToken, problem: .controlCharacter("\r")))
        #expect(!String(describing: error).contains("SECRET"))
        #expect(transport.requests.isEmpty)
    }

    @Test("a token holding CR/LF handed to AuthPlugin directly is refused, never sent, never shown")
    func signingRefusesLineBreak() async throws {
        let session = AuthSession(store: InMemoryTokenStore(), refresh: { $0 }, refreshTimeout: testRefreshTimeout)
        let plugin = AuthPlugin(auth: session)
        let request = URLRequest(url: URL(string: "https://api.example.com/raw")!)
        let token = OAuthToken(accessToken: "SECRET\r\nX-Injected: 1", refreshToken: "r")
        let error = await #expect(throws: CourierError.self) {
            try await plugin.sign(request, with: token, as: .bearer)
        }
        guard case .underlying(let refusal as RequestValidationError, nil)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(refusal.reason == .invalidHeaderValue(headerName: "Authorization", invalidCharacter: "\r"))
        #expect(!refusal.description.contains("SECRET"))
    }

    /// Characters a fuzzed name or method is made of: token characters, separators,
    /// whitespace, controls, DEL and non-ASCII.
    static let pool: [Unicode.Scalar] =
        Array("abcXYZ09-_.!#$%&'*+^`|~".unicodeScalars)
        + Array(" \t\r\n\u{0}\u{1}\u{7F}\u{85}()<>@,;:\\\"/[]?={}é€😀".unicodeScalars)

    /// The oracle, written apart from Courier's: RFC 9110 §5.6.2 tchar.
    static func isToken(_ text: String) -> Bool {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
        return !text.isEmpty && text.unicodeScalars.allSatisfy { tchar.contains($0) }
    }

    static func fuzzed(_ random: inout SeededRandomNumberGenerator) -> String {
        let length = Int(random.next() % 10)
        // Mostly token characters, so valid and invalid inputs both come up often.
        let tokenCount = UInt64(Array("abcXYZ09-_.!#$%&'*+^`|~".unicodeScalars).count)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let pick =
                random.next() % 8 == 0 ? Int(random.next() % UInt64(pool.count)) : Int(random.next() % tokenCount)
            scalars.append(pool[pick])
        }
        return String(scalars)
    }

    @Test("seeded fuzzing: 4,000 header names and 4,000 methods; each request ends once, only tokens are sent")
    func fuzz() async throws {
        var random = SeededRandomNumberGenerator(seed: 0xC0FFEE)
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)
        let provider = Provider<RawTarget>.scripted(transport)
        var sent = 0
        var refused = 0
        for round in 0..<8_000 {
            // A scripted request may never suspend: let other tests have the thread now and then.
            if round % 200 == 0 { await Task.yield() }
            let text = Self.fuzzed(&random)
            let fuzzingName = round % 2 == 0
            let target =
                fuzzingName
                ? RawTarget(headers: [text: "value-\(round)"])
                : RawTarget(method: HTTPMethod(rawValue: text))
            let before = transport.requests.count
            let result: Result<Response, CourierError>
            do {
                result = .success(try await provider.request(target))
            } catch {
                result = .failure(error)
            }
            let after = transport.requests.count
            if Self.isToken(text) {
                #expect((try? result.get().statusCode) == 200, "\(text.debugDescription) was refused: \(result)")
                #expect(after == before + 1)
                let request = try #require(transport.requests.last)
                if fuzzingName {
                    #expect(request.value(forHTTPHeaderField: text) == "value-\(round)")
                } else {
                    #expect(request.httpMethod?.uppercased() == text.uppercased())
                }
                sent += 1
            } else {
                #expect(refusalIn(result) != nil, "\(text.debugDescription) was not refused: \(result)")
                #expect(after == before, "\(text.debugDescription) reached the transport")
                refused += 1
            }
        }
        #expect(sent > 1_000)
        #expect(refused > 1_000)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
