import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Processes that burn a core each (`python3 -c "while True: pass"`), beside the processes a
/// test measures, so that it runs on a busy machine. Stopped by ``stop()``; they also exit when
/// their standard input closes, so they never outlive the test process.
final class BusyLoops: Sendable {
    private let processes: [Process]

    /// Starts `count` busy loops.
    init(count: Int) throws {
        let script = """
            import sys, threading
            threading.Thread(target=lambda: (sys.stdin.read(), __import__("os")._exit(0)), daemon=True).start()
            while True: pass
            """
        var started: [Process] = []
        for _ in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script]
            process.standardInput = Pipe()
            try process.run()
            started.append(process)
        }
        processes = started
    }

    /// Ends every loop (`kill -9`). Foundation reaps them; waiting here for that
    /// (`waitUntilExit`) would hang a task that is not on the main run loop.
    func stop() {
        for process in processes where process.isRunning {
            #if canImport(Glibc)
                _ = Glibc.kill(process.processIdentifier, SIGKILL)
            #else
                _ = Darwin.kill(process.processIdentifier, SIGKILL)
            #endif
        }
    }
}
