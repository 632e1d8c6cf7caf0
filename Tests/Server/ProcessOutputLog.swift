import Dispatch
import Foundation

/// Collects what the server writes to stderr (the last 64 KiB) and echoes it to this
/// process's stderr, prefixed, so tracebacks show up in test logs.
final class ProcessOutputLog: @unchecked Sendable {
    // Its own lock rather than CourierTesting's LockIsolated: CourierTestServer depends on
    // nothing.
    // @unchecked Sendable: `data` is only touched under `lock`; `ended` is a semaphore.
    private let lock = NSLock()
    private var data = Data()
    private let ended = DispatchSemaphore(value: 0)
    private static let limit = 64 * 1024

    /// Starts draining `handle` on a dedicated thread until end-of-file.
    func drain(_ handle: FileHandle) {
        PipeReader.start(
            name: "CourierTestServer.stderr",
            reading: handle,
            onChunk: { [self] chunk in
                append(chunk)
                try? FileHandle.standardError.write(contentsOf: Self.prefixed(chunk))
            },
            onEnd: { [self] in ended.signal() }
        )
    }

    /// The text collected so far, after waiting up to `seconds` for the stream to end
    /// (so an exiting process's last words are included).
    func text(waitingUpTo seconds: TimeInterval) -> String {
        if seconds > 0, ended.wait(timeout: .now() + seconds) == .success {
            ended.signal()  // keep it signalled for later callers
        }
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    private func append(_ chunk: Data) {
        lock.lock()
        defer { lock.unlock() }
        data.append(chunk)
        if data.count > Self.limit {
            data = Data(data.suffix(Self.limit))
        }
    }

    private static func prefixed(_ chunk: Data) -> Data {
        let text = String(decoding: chunk, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let body = lines.enumerated()
            .filter { !($0.offset == lines.count - 1 && $0.element.isEmpty) }
            .map { "[CourierTestServer] \($0.element)" }
            .joined(separator: "\n")
        return Data((body + "\n").utf8)
    }
}
