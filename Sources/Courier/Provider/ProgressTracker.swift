import Foundation

/// Turns raw byte counts from the transport into monotonic ``ProgressResponse`` steps.
///
/// Each step before the response reports the true fraction of the bytes, `completed / total`
/// — no ceiling, so no made-up 99.9999 %: an upload whose bytes are all out reports 1 while
/// it waits for the server's answer, as Moya and Alamofire do. The last step carries the
/// response, at exactly 1, and nothing is reported after it. The fraction never goes back: a
/// replayed attempt (after a 401) starts again from zero bytes while the fraction holds.
/// Steps are emitted under the lock, so they reach `emit` in order even when a transport
/// reports from several threads.
///
/// No Foundation `Progress` here: on Linux, setting its `totalUnitCount` from a positive
/// value back to 0 traps (swift-corelibs-foundation#3263).
final class ProgressTracker: @unchecked Sendable {  // `lock` guards every mutable field
    // @unchecked: `lock` guards every mutable field (`highestFraction`, `lastCompleted`,
    // `lastTotal`, `isFinished`); `emit` is only called while holding it.
    private let lock = NSLock()
    private var highestFraction = 0.0
    private var lastCompleted: Int64?
    private var lastTotal: Int64?
    private var isFinished = false
    private let emit: @Sendable (ProgressResponse) -> Void

    init(emit: @escaping @Sendable (ProgressResponse) -> Void) {
        self.emit = emit
    }

    /// Reports `completed` of `total` bytes; what the transport calls.
    var report: ProgressContext.Report {
        { [self] completed, total in record(completed: completed, total: total) }
    }

    private func record(completed: Int64, total: Int64?) {
        let fraction = total.map { $0 > 0 ? min(1, max(0, Double(completed) / Double($0))) : 0 } ?? 0
        lock.withLock {
            guard !isFinished else { return }
            highestFraction = max(highestFraction, fraction)
            let monotonic = highestFraction
            lastCompleted = completed
            lastTotal = total
            emit(ProgressResponse(progress: monotonic, completedBytes: completed, totalBytes: total))
        }
    }

    /// Reports the end of the transfer, with its response: progress 1, and the total (or
    /// the bytes last reported, or the body's size when nothing was reported).
    func finish(with response: Response) {
        lock.withLock {
            guard !isFinished else { return }
            isFinished = true
            highestFraction = 1
            let bytes = lastTotal ?? lastCompleted ?? Int64(response.data.count)
            emit(ProgressResponse(progress: 1, completedBytes: bytes, totalBytes: bytes, response: response))
        }
    }
}
