import Foundation

/// The process's memory, read from `/proc/self/status` (Linux).
enum ProcessMemory {
    /// Resident set size in bytes (`VmRSS`), or `nil` where `/proc` is unavailable.
    static func residentBytes() -> Int? { field("VmRSS") }

    /// Peak resident set size in bytes (`VmHWM`).
    static func peakResidentBytes() -> Int? { field("VmHWM") }

    /// Waits until resident memory stops growing: at least 300 ms, then until two readings
    /// 100 ms apart differ by less than 64 KiB (at most 5 s in all), so that tasks started
    /// a moment ago have reached the point where they wait.
    static func settle() async throws {
        try await Task.sleep(nanoseconds: 300_000_000)
        var last = residentBytes() ?? 0
        for _ in 0..<47 {
            try await Task.sleep(nanoseconds: 100_000_000)
            let now = residentBytes() ?? 0
            if abs(now - last) < 64 * 1024 { return }
            last = now
        }
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap
            { Int($0) }
            return number.map { $0 * 1024 }
        }
        return nil
    }
}
