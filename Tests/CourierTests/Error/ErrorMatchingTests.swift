import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Errors a test can match: equality and predicates")
struct ErrorMatchingTests {
    private struct Reason: Error { let code: Int }
    private final class Handle: Error, Sendable {}

    private static let response = Response(
        statusCode: 404, data: Data("gone".utf8),
        request: URLRequest(url: URL(string: "https://api.example.com/v1/items")!))

    private static func decodingError(at key: String) -> any Error {
        DecodingError.keyNotFound(
            AnyKey(key), .init(codingPath: [AnyKey("items")], debugDescription: "no \(key)"))
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// One error of every case, with payloads of every kind: Equatable, not Equatable, a
    /// class.
    private static var everyCase: [CourierError] {
        let handle = Handle()
        return [
            .jsonMapping(response), .stringMapping(response), .objectMapping(decodingError(at: "id"), response),
            .encodableMapping(Reason(code: 1)), .statusCode(response),
            .underlying(URLError(.timedOut), nil), .underlying(handle, response),
            .underlying(NSError(domain: "d", code: 2), nil),
            .requestMapping("path"), .parameterEncoding(ParameterEncodingFailure.missingURL),
            .authentication(.sessionExpired), .authentication(.refreshFailed(Reason(code: 3))),
            .authentication(.storeUnavailable(handle)), .cancelled,
        ]
    }

    @Test("every error equals itself and no other case, whatever its payload")
    func equalityIsReflexiveAndTellsCasesApart() {
        let errors = Self.everyCase
        for (index, error) in errors.enumerated() {
            #expect(error == error, "\(error)")
            for (otherIndex, other) in errors.enumerated() where otherIndex != index {
                #expect(error != other, "\(error) and \(other)")
            }
        }
    }

    @Test("payloads decide: responses by value, errors by ==, instance or printed value")
    func payloadsDecide() {
        #expect(CourierError.statusCode(Self.response) == .statusCode(Self.response))
        #expect(CourierError.statusCode(Self.response) != .statusCode(Response(statusCode: 404, data: Data())))
        #expect(
            CourierError.objectMapping(Self.decodingError(at: "id"), Self.response)
                == .objectMapping(Self.decodingError(at: "id"), Self.response))
        #expect(
            CourierError.objectMapping(Self.decodingError(at: "id"), Self.response)
                != .objectMapping(Self.decodingError(at: "name"), Self.response))
        #expect(CourierError.encodableMapping(Reason(code: 1)) == .encodableMapping(Reason(code: 1)))
        #expect(CourierError.encodableMapping(Reason(code: 1)) != .encodableMapping(Reason(code: 2)))
        #expect(CourierError.underlying(Handle(), nil) != .underlying(Handle(), nil), "two instances")
        #expect(CourierError.underlying(URLError(.timedOut), nil) == .underlying(URLError(.timedOut), nil))
        #expect(CourierError.underlying(URLError(.timedOut), nil) != .underlying(URLError(.cancelled), nil))
        // The same domain and code, but not the same type: never equal, in either order.
        let bridged = NSError(domain: NSURLErrorDomain, code: URLError.timedOut.rawValue)
        #expect(CourierError.underlying(bridged, nil) != .underlying(URLError(.timedOut), nil))
        #expect(CourierError.underlying(URLError(.timedOut), nil) != .underlying(bridged, nil))
        #expect(
            AuthenticationError.refreshFailed(CourierError.statusCode(Self.response))
                == .refreshFailed(CourierError.statusCode(Self.response)))
        #expect(AuthenticationError.refreshFailed(URLError(.timedOut)) != .storeUnavailable(URLError(.timedOut)))
    }

    @Test("a provider's session-expired failure matches #expect(throws:) exactly", .timeLimit(.minutes(20)))
    func expectThrowsMatchesSessionExpired() async throws {
        let session = AuthSession(
            refresh: { _ in throw AuthenticationError.sessionExpired }, refreshTimeout: testRefreshTimeout)
        try await session.signIn(OAuthToken(accessToken: "a1", refreshToken: "r1"))
        let provider = RefreshableProvider<ErrorTestTarget>(
            auth: session,
            endpointClosure: Provider.endpointClosure(sampleResponse: { _ in .networkResponse(401, Data()) }),
            stubClosure: Provider.immediatelyStub)

        await #expect(throws: CourierError.authentication(.sessionExpired)) {
            try await provider.request(ErrorTestTarget(validationType: .none))
        }
        let error = await #expect(throws: CourierError.self) {
            try await provider.request(ErrorTestTarget(validationType: .none))
        }
        #expect(error?.isSessionExpired == true)
        #expect(error?.statusCode == nil)
        await #expect(throws: AuthenticationError.sessionExpired) { try await session.validToken() }
    }

    @Test("statusCode, urlError and authenticationError say what kind of failure it is")
    func predicates() async throws {
        let provider = Provider<ErrorTestTarget>.stubbed { _ in .networkResponse(404, Data()) }
        let rejected = await #expect(throws: CourierError.self) { try await provider.request(ErrorTestTarget()) }
        #expect(rejected?.statusCode == 404)
        #expect(rejected?.isSessionExpired == false && rejected?.isCancelled == false)

        let offline = CourierError.underlying(URLError(.notConnectedToInternet), nil)
        #expect(offline.urlError?.code == .notConnectedToInternet && offline.statusCode == nil)
        let refreshOffline = CourierError.authentication(
            .refreshFailed(CourierError.underlying(URLError(.timedOut), nil)))
        #expect(refreshOffline.urlError?.code == .timedOut)
        #expect(refreshOffline.authenticationError?.isSessionExpired == false)

        // A plugin that throws the session's error: it arrives wrapped, and still says so.
        let wrapped = CourierError.underlying(CourierError.authentication(.sessionExpired), nil)
        #expect(wrapped.isSessionExpired)
        #expect(CourierError.underlying(AuthenticationError.sessionExpired, nil).authenticationError == .sessionExpired)
        #expect(AuthenticationError.cancelled.isCancelled && !AuthenticationError.sessionExpired.isCancelled)
        #expect(CourierError.statusCode(Self.response).authenticationError == nil)
    }

    @Test("an error erased to any Error matches a case named with its type, or through CourierError(_:)")
    func erasedErrors() throws {
        func rethrowing() throws {  // a wrapper that erases the typed throw
            throw CourierError.objectMapping(Self.decodingError(at: "id"), Self.response)
        }
        do {
            try rethrowing()
            Issue.record("nothing was thrown")
        } catch {
            var matched = false
            if case CourierError.objectMapping(let decoding as DecodingError, let response) = error {
                matched = response.statusCode == 404 && decoding.localizedDescription.isEmpty == false
            }
            #expect(matched)
            #expect(CourierError(error).statusCode == 404)
            #expect(CourierError(AuthenticationError.sessionExpired).isSessionExpired)
            #expect(CourierError(CancellationError()) == .cancelled)
        }
    }
}
