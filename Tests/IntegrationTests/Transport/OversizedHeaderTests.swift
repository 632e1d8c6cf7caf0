import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response header line larger than the client accepts is the server's fault: a bad server
/// response that says so, never "out of memory" (`cannotLoadFromNetwork` is kept for a process
/// out of file descriptors) nor an unknown error.
@Suite("An oversized response header", .timeLimit(.minutes(20)))
struct OversizedHeaderTests {
    let server: TestServer

    init() async throws {
        server = try await SharedServer.get()
    }

    @Test(
        "a 1 MiB response header line fails with badServerResponse naming the header, not cannotLoadFromNetwork or unknown",
        arguments: TransportUnderTest.allCases)
    func megabyteHeaderLine(_ kind: TransportUnderTest) async throws {
        let provider = Provider<ServerAPI>(transport: kind.make(timeout: 30))
        let result = await outcome(
            provider, ServerAPI(server, "fault/huge-headers", task: query(["size": 1024 * 1024])))

        #expect(urlErrorCode(result) == .badServerResponse, "\(result)")
        if case .failure(let error) = result {
            let description = String(describing: error)
            #expect(description.contains("header larger than the client accepts"), "\(description)")
            #expect(!description.lowercased().contains("out of memory"), "\(description)")
        }
        // A header within the bound still arrives whole.
        let fine = try await provider.request(ServerAPI(server, "fault/huge-headers"))
        #expect(fine.response?.value(forHTTPHeaderField: "X-Huge")?.count == 65536)
    }
}
