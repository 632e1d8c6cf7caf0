import Foundation
import Testing

@testable import Courier

/// Leases in a lock file are measured on the machine's shared monotonic clock, with the
/// boot's identity: a process whose wall clock jumped (an NTP step, a user setting the time, a
/// resumed virtual machine) neither takes a live lease nor loses its own, and a lease from
/// another boot has expired. Lock files of the first layout (wall-clock expiry only) are read
/// as before.
@Suite("Lease clock", .timeLimit(.minutes(20)))
struct LeaseClockTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-clock-\(UUID().uuidString)")
    var lockURL: URL { folder.appendingPathComponent("token.json.lock") }
    static let patience: TimeInterval = 600
    static let hours: TimeInterval = 3 * 3600

    func coordinator(wallOffset: TimeInterval = 0) -> LockFileTokenCoordinator {
        LockFileTokenCoordinator(
            lockFile: lockURL, storage: TokenFileStorage(url: folder.appendingPathComponent("token.json")),
            wallClock: { Date().addingTimeInterval(wallOffset) })
    }

    func writeRecord(_ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: lockURL)
    }

    @Test(
        "a process whose wall clock is hours ahead (or behind) does not take a live lease", arguments: [hours, -hours])
    func jumpedClockDoesNotTakeOver(offset: TimeInterval) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let holder = coordinator()
        let jumped = coordinator(wallOffset: offset)
        let lease = try await holder.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        await #expect(throws: TokenLeaseTimeout.self) {
            _ = try await jumped.acquireLease(expiringAfter: 600, waitingAtMost: 0.05)
        }
        #expect(await lease.isHeld())
        await lease.release()
        try await jumped.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience).release()
    }

    @Test("a lease written by a process whose wall clock was hours behind is not read as expired")
    func behindWriterKeepsLease() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let behind = coordinator(wallOffset: -Self.hours)
        let other = coordinator()
        let lease = try await behind.acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        await #expect(throws: TokenLeaseTimeout.self) {
            _ = try await other.acquireLease(expiringAfter: 600, waitingAtMost: 0.05)
        }
        #expect(await lease.isHeld())
        await lease.release()
    }

    @Test("a lease from another boot has expired, however far its expiry")
    func otherBootExpired() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var record = LockRecord()
        record.generation = 7
        record.owner = UUID()
        record.expiry = Int64.max
        record.bootID = UUID()
        record.bootExpiry = Int64.max
        try writeRecord(record.bytes)
        let lease = try await coordinator().acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        #expect(await lease.isHeld())
        await lease.release()
        #expect(try await coordinator().currentGeneration() == 7)
    }

    @Test("a first-layout record (72 bytes, wall-clock expiry) keeps its generation and its lease's wall-clock expiry")
    func firstLayoutRecord() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        func firstLayout(expiry: Int64) -> [UInt8] {
            var record = LockRecord()
            record.generation = 41
            record.change = .refreshed
            record.owner = UUID()
            record.expiry = expiry
            var bytes = Array(record.bytes.prefix(LockRecord.firstLayoutSize))
            bytes[8] = 1
            return bytes
        }
        let nowMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        // Live by the wall clock: not taken.
        try writeRecord(firstLayout(expiry: nowMilliseconds + 3_600_000))
        #expect(try await coordinator().currentGeneration() == 41)
        await #expect(throws: TokenLeaseTimeout.self) {
            _ = try await coordinator().acquireLease(expiringAfter: 600, waitingAtMost: 0.05)
        }
        // Expired by the wall clock: taken.
        try writeRecord(firstLayout(expiry: nowMilliseconds - 1000))
        let lease = try await coordinator().acquireLease(expiringAfter: 600, waitingAtMost: Self.patience)
        await lease.release()
        #expect(try await coordinator().currentGeneration() == 41)
    }

    @Test(
        "expiry on the lease clock: the same boot compares boot time, another boot is expired, none falls back to the wall clock"
    )
    func expiryRule() {
        let boot = UUID()
        var record = LockRecord()
        record.setExpiry(after: 10, wallMilliseconds: 1_000, boot: 5_000_000_000, bootID: boot)
        #expect(!record.isExpired(wallMilliseconds: Int64.max, boot: 14_000_000_000, bootID: boot))
        #expect(record.isExpired(wallMilliseconds: 0, boot: 15_000_000_000, bootID: boot))
        #expect(record.isExpired(wallMilliseconds: 0, boot: 0, bootID: UUID()))
        #expect(record.isExpired(wallMilliseconds: 11_000, boot: 0, bootID: nil))
        #expect(!record.isExpired(wallMilliseconds: 10_999, boot: 0, bootID: nil))
        #expect(LockRecord(bytes: record.bytes) == record)
        #expect(LeaseClock.bootID != nil)
        #expect(LeaseClock.now() > 0)
    }
}
