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
final class ProgressTracker: Sendable {
    private struct State {
        var highestFraction = 0.0
        var lastCompleted: Int64?
        var lastTotal: Int64?
        var isFinished = false
    }

    // `emit` is only called while holding the lock, so steps reach it in order.
    private let state = Locked(State())
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
        state.withValue { state in
            guard !state.isFinished else { return }
            state.highestFraction = max(state.highestFraction, fraction)
            state.lastCompleted = completed
            state.lastTotal = total
            emit(ProgressResponse(progress: state.highestFraction, completedBytes: completed, totalBytes: total))
        }
    }

    /// Reports the end of the transfer, with its response: progress 1, and the total (or
    /// the bytes last reported, or the body's size when nothing was reported).
    func finish(with response: Response) {
        state.withValue { state in
            guard !state.isFinished else { return }
            state.isFinished = true
            state.highestFraction = 1
            let bytes = state.lastTotal ?? state.lastCompleted ?? Int64(response.data.count)
            emit(ProgressResponse(progress: 1, completedBytes: bytes, totalBytes: bytes, response: response))
        }
    }
}
