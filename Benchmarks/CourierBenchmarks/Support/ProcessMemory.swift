import Foundation

/// The process's memory, read from `/proc/self/status` (Linux).
enum ProcessMemory {
    /// Resident set size in bytes (`VmRSS`), or `nil` where `/proc` is unavailable.
    static func residentBytes() -> Int? { field("VmRSS") }

    /// Peak resident set size in bytes (`VmHWM`).
    static func peakResidentBytes() -> Int? { field("VmHWM") }

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
