import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The clock that measures leases in a lock file: one that every process on the machine
/// shares and that changes of the wall clock (an NTP step, a user setting the time, a virtual
/// machine resumed) do not move, with the identity of the boot it counts from.
///
/// - Linux: `CLOCK_BOOTTIME` (system-wide, counts suspend) and
///   `/proc/sys/kernel/random/boot_id`.
/// - Apple platforms: `CLOCK_MONOTONIC` (continuous time: system-wide, counts sleep) and
///   `kern.bootsessionuuid`.
///
/// A lease written in another boot has expired: its clock started again from zero.
enum LeaseClock {
    /// Nanoseconds since boot.
    static func now() -> Int64 {
        var time = timespec()
        #if os(Linux) || os(Android)
            let clock = clockid_t(CLOCK_BOOTTIME)
        #else
            let clock = CLOCK_MONOTONIC
        #endif
        guard clock_gettime(clock, &time) == 0 else { return 0 }
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// This boot's identity, or `nil` where the system does not tell it (leases then fall back
    /// to the wall clock).
    static let bootID: UUID? = readBootID()

    private static func readBootID() -> UUID? {
        #if os(Linux) || os(Android)
            guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
                return nil
            }
            return UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines))
        #elseif canImport(Darwin)
            var size = 0
            guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 0 else { return nil }
            var bytes = [CChar](repeating: 0, count: size)
            guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
            return UUID(uuidString: String(cString: bytes))
        #else
            return nil
        #endif
    }
}
