import Dispatch
import Foundation

/// Reads the `PORT <n>` line that `server.py` prints once it listens.
enum PortAnnouncement {
    /// Why no port was read.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads `handle` on a dedicated thread until a `PORT <n>` line, end-of-file or
    /// `timeout`, whichever comes first. After the line the thread keeps draining the pipe
    /// so the server can never block on a full stdout.
    static func read(from handle: FileHandle, timeout: TimeInterval) async throws -> Int {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            let outcome = OneShot(continuation)
            let received = LockedBuffer()
            PipeReader.start(
                name: "CourierTestServer.stdout",
                reading: handle,
                onChunk: { chunk in
                    for line in received.append(chunk) {
                        let fields = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
                        if fields.count == 2, fields[0] == "PORT", let port = Int(fields[1]), port > 0 {
                            received.finish()
                            outcome.resume(with: .success(port))
                            return
                        }
                    }
                },
                onEnd: {
                    let output = received.text
                    let shown = output.isEmpty ? "nothing" : "\"\(output.prefix(500))\""
                    outcome.resume(
                        with: .failure(
                            Failure(
                                description: "the process closed its stdout (it exited?) after printing \(shown)"
                            )))
                }
            )
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                let output = received.text
                let shown = output.isEmpty ? "nothing" : "\"\(output.prefix(500))\""
                outcome.resume(
                    with: .failure(
                        Failure(
                            description: "no PORT line within \(timeout) s; stdout had \(shown)"
                        )))
            }
        }
    }
}

/// Resumes a continuation exactly once; later calls are ignored.
private final class OneShot<Value: Sendable>: @unchecked Sendable {
    // Its own lock rather than CourierTesting's LockIsolated: CourierTestServer depends on
    // nothing.
    // @unchecked Sendable: `continuation` is only read and cleared under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = continuation
    }

    func resume(with result: Result<Value, any Error>) {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume(with: result)
    }
}

/// The stdout bytes seen before the port line (capped at 64 KiB), split into lines.
private final class LockedBuffer: @unchecked Sendable {
    // Its own lock rather than CourierTesting's LockIsolated: CourierTestServer depends on
    // nothing.
    // @unchecked Sendable: `seen`, `pending` and `isDone` are only touched under `lock`.
    private let lock = NSLock()
    private var seen = Data()
    private var pending = Data()
    private var isDone = false

    /// Appends `chunk` and returns the lines it completed; nothing once ``finish()`` was
    /// called (the reader then just drains the pipe).
    func append(_ chunk: Data) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        guard !isDone else { return [] }
        if seen.count < 64 * 1024 {
            seen.append(chunk)
            pending.append(chunk)
        }
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending = Data(pending[pending.index(after: newline)...])
        }
        return lines
    }

    /// Stops collecting.
    func finish() {
        lock.lock()
        isDone = true
        lock.unlock()
    }

    /// Everything seen so far, as text.
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: seen, as: UTF8.self)
    }
}
