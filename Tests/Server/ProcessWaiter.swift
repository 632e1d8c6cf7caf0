import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bounded waits for a child process (`Process.waitUntilExit()` has no time-out).
enum ProcessWaiter {
    /// Polls until `process` exits or `seconds` pass; returns whether it exited.
    static func wait(for process: Process, upTo seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            if Date() >= deadline {
                return false
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// Sends `SIGKILL` to a process that ignored `SIGTERM`.
    static func kill(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0, process.isRunning else { return }
        #if canImport(Glibc)
            _ = Glibc.kill(pid, SIGKILL)
        #elseif canImport(Musl)
            _ = Musl.kill(pid, SIGKILL)
        #else
            _ = Darwin.kill(pid, SIGKILL)
        #endif
    }
}
