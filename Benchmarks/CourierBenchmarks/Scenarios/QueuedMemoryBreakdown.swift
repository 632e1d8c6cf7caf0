import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the memory of a request waiting for a refresh goes: child measurements that stop
/// the same requests at different depths, each against the same floor (a bare suspended
/// task, ``QueuedMemoryChild/runFloor(count:)``).
///
/// - `queue-session`: tasks waiting in `AuthSession.validToken()` alone — the session's
///   waiting path (its frames, the continuation, the cancellation handler, the waiter table);
/// - `queue-plugin`: requests of a plain `Provider` stopped in a plugin's `prepare` on the
///   floor's latch — the provider's frames, the target, endpoint and built `URLRequest`,
///   with no session at all.
///
/// `queue-memory` (the scenario's own figure) is the whole: `RefreshableProvider`, its
/// `AuthPlugin` and the session. Run one with `CourierBenchmarks --child NAME`.
enum QueuedMemoryBreakdown {
    static func runSession(count: Int) async throws -> [String: Double] {
        let release = Latch()
        let session = try await QueuedMemoryChild.heldSession(release: release)
        let arrivals = CallCounter()
        // Warm-up with a valid token.
        _ = await send(count / 10, session: session, arrivals: arrivals)
        arrivals.reset()
        try await QueuedMemoryChild.expireToken(of: session)
        try await Task.sleep(nanoseconds: 200_000_000)
        let before = ProcessMemory.residentBytes() ?? 0
        async let outcome = send(count, session: session, arrivals: arrivals)
        while arrivals.value < count { try await Task.sleep(nanoseconds: 5_000_000) }
        try await ProcessMemory.settle()
        let during = ProcessMemory.residentBytes() ?? 0
        await release.open()
        return ["bytes_per_request": Double(during - before) / Double(count), "completed": Double(await outcome)]
    }

    private static func send(_ count: Int, session: AuthSession, arrivals: CallCounter) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    arrivals.increment()
                    return (try? await session.validToken(minimumValidity: 60)) != nil
                }
            }
            var succeeded = 0
            for await ok in group where ok { succeeded += 1 }
            return succeeded
        }
    }

    static func runPlugin(count: Int) async throws -> [String: Double] {
        let parking = ParkingPlugin()
        let provider = Provider<QueuedMemoryChild.SignedAPI>(
            transport: ImmediateTransport(statusCode: 200, data: smallJSONBody), plugins: [parking])
        _ = await send(count / 10, provider: provider)
        parking.park()
        try await Task.sleep(nanoseconds: 200_000_000)
        let before = ProcessMemory.residentBytes() ?? 0
        async let outcome = send(count, provider: provider)
        while parking.arrivals.value < count { try await Task.sleep(nanoseconds: 5_000_000) }
        try await ProcessMemory.settle()
        let during = ProcessMemory.residentBytes() ?? 0
        await parking.latch.open()
        return ["bytes_per_request": Double(during - before) / Double(count), "completed": Double(await outcome)]
    }

    private static func send(_ count: Int, provider: Provider<QueuedMemoryChild.SignedAPI>) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask {
                    (try? await provider.request(QueuedMemoryChild.SignedAPI(index: index)))?.statusCode == 200
                }
            }
            var succeeded = 0
            for await ok in group where ok { succeeded += 1 }
            return succeeded
        }
    }
}

/// Once parked, holds every request in `prepare` on the floor's latch.
final class ParkingPlugin: PluginType, @unchecked Sendable {
    // @unchecked: `lock` guards `parked`; `latch` and `arrivals` are Sendable.
    private let lock = NSLock()
    private var parked = false
    let latch = Latch()
    let arrivals = CallCounter()

    func park() { lock.withLock { parked = true } }

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        guard lock.withLock({ parked }) else { return request }
        arrivals.increment()
        await latch.wait()
        return request
    }
}
