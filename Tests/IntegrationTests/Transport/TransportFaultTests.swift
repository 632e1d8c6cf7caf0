import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server that misbehaves on the wire: every transport answers with a typed error (or the
/// intact response), never a hang or a crash. Each case is bounded by a time-out, whose
/// error would fail it, and by the suite's time limit.
@Suite("Transports against a misbehaving server", .timeLimit(.minutes(20)))
struct TransportFaultTests {
    let server: TestServer

    init() async throws {
        server = try await SharedServer.get()
    }

    /// A provider whose requests time out after `timeout` seconds: 10 s by default, so
    /// nothing can hang, with room for a busy shared server.
    static func provider(_ kind: TransportUnderTest, timeout: TimeInterval = 10) -> Provider<ServerAPI> {
        Provider<ServerAPI>(
            requestClosure: { endpoint in
                var request = try endpoint.urlRequest()
                request.timeoutInterval = timeout
                return request
            },
            transport: kind.make())
    }

    /// Expects `path` to fail with one of `codes`. None of them is `.timedOut` unless the case
    /// is about a time-out, so the failure is the fault's, never the provider's 10 s time-out
    /// (a transport that hung on the fault would end in `.timedOut` and fail the test): no
    /// clock is needed, and a busy machine cannot fail it.
    func expectUnderlying(_ path: String, codes: Set<URLError.Code>, using provider: Provider<ServerAPI>) async {
        await #expect {
            try await provider.request(ServerAPI(server, path))
        } throws: { error in
            guard case .underlying(let underlying, _) = error as? CourierError,
                let urlError = underlying as? URLError
            else { return false }
            return codes.contains(urlError.code) && !"\(error)".isEmpty
        }
    }

    @Test("connection reset mid-response is a typed network error", arguments: TransportUnderTest.allCases)
    func resetMidResponse(_ kind: TransportUnderTest) async {
        await expectUnderlying(
            "fault/reset", codes: [.networkConnectionLost, .badServerResponse, .cannotParseResponse],
            using: Self.provider(kind))
    }

    @Test("the server closing before any header is a typed network error", arguments: TransportUnderTest.allCases)
    func closeBeforeHeaders(_ kind: TransportUnderTest) async {
        await expectUnderlying(
            "fault/close-before-headers", codes: [.networkConnectionLost, .badServerResponse, .zeroByteResource],
            using: Self.provider(kind))
    }

    @Test("headers slower than the request time-out end in timedOut, promptly", arguments: TransportUnderTest.allCases)
    func slowHeaders(_ kind: TransportUnderTest) async {
        // The headers come after 120 s: only the 1 s time-out can end the request in timedOut
        // before that (without it, the request would succeed).
        await expectUnderlying("fault/slow-headers/120000", codes: [.timedOut], using: Self.provider(kind, timeout: 1))
    }

    @Test(
        "a body shorter than its Content-Length is an error, never a truncated success",
        arguments: TransportUnderTest.allCases)
    func truncatedBody(_ kind: TransportUnderTest) async {
        await expectUnderlying("fault/truncated", codes: [.networkConnectionLost], using: Self.provider(kind))
    }

    @Test("a 64 KiB header arrives intact", arguments: TransportUnderTest.allCases)
    func hugeHeaders(_ kind: TransportUnderTest) async throws {
        let response = try await Self.provider(kind).request(ServerAPI(server, "fault/huge-headers"))
        #expect(response.statusCode == 200)
        #expect((response.response?.value(forHTTPHeaderField: "X-Huge")?.count ?? 0) >= 60_000)
    }

    @Test("a redirect loop ends in a typed error, not a hang", arguments: TransportUnderTest.allCases)
    func redirectLoop(_ kind: TransportUnderTest) async {
        await expectUnderlying(
            "redirect-loop", codes: [.httpTooManyRedirects, .redirectToNonExistentLocation],
            using: Self.provider(kind))
    }
}
