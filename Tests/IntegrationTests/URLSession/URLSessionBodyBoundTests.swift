import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `URLSessionTransport` holds of a body that passes its bound, counted by the transport
/// itself (`largestBodyHeld`, `package`): memory is never asserted here; the benchmark measures
/// it (`scripts/bench`, scenario `bomb`).
@Suite("URLSessionTransport holds no more than its bound", .serialized, .timeLimit(.minutes(20)))
struct URLSessionBodyBoundTests {
    let server: TestServer

    init() async throws {
        server = try await SharedServer.get()
    }

    @Test(
        "gzip bombs decoding at once on one transport: each fails at the bound, and no body ever held more than the bound and one block"
    )
    func concurrentBombs() async throws {
        let bound = 256 * 1024
        let transport = URLSessionTransport(
            configuration: URLSessionTransport.defaultConfiguration(), maximumResponseBodySize: bound)
        let provider = Provider<ServerAPI>(transport: transport)
        // 16 MiB of zeros each, some 16 KiB on the wire: libcurl decodes far faster than
        // anything can keep up on a busy machine.
        let target = ServerAPI(server, "hostile/gzip-bomb", task: query(["size": 16 * 1024 * 1024]))
        for _ in 0..<5 {
            let codes = await withTaskGroup(of: URLError.Code?.self) { group in
                for _ in 0..<8 {
                    group.addTask { urlErrorCode(await outcome(provider, target)) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(codes.allSatisfy { $0 == .dataLengthExceedsMaximum }, "\(codes)")
        }
        // libcurl hands over decoded blocks of at most 16 KiB; the block that passes the bound
        // is held for a moment, then dropped with everything kept before it.
        #expect(transport.largestBodyHeld > bound)
        #expect(transport.largestBodyHeld <= bound + 64 * 1024, "held \(transport.largestBodyHeld) bytes")
    }

    @Test("a body within the bound is held whole, and only once")
    func withinBound() async throws {
        let transport = URLSessionTransport(
            configuration: URLSessionTransport.defaultConfiguration(), maximumResponseBodySize: 1024 * 1024)
        let response = try await Provider<ServerAPI>(transport: transport).request(
            ServerAPI(server, "hostile/gzip-bomb", task: query(["size": 512 * 1024])))

        #expect(response.data.count == 512 * 1024)
        #expect(transport.largestBodyHeld == 512 * 1024)
    }
}
