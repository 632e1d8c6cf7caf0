import Foundation

/// Turns raw byte counts from the transport into monotonic ``ProgressResponse`` steps.
///
/// A replayed attempt (after a 401) starts again from zero bytes; the fraction reported to
/// the caller never goes back.
final class ProgressTracker: @unchecked Sendable {  // `lock` guards `highestFraction`
    // `lock` guards `highestFraction`, the only mutable field.
    private let lock = NSLock()
    private var highestFraction = 0.0
    private let emit: @Sendable (ProgressResponse) -> Void

    init(emit: @escaping @Sendable (ProgressResponse) -> Void) {
        self.emit = emit
    }

    /// Reports `completed` of `total` bytes.
    var report: @Sendable (Int64, Int64?) -> Void {
        { [self] completed, total in
            let fraction = total.map { $0 > 0 ? min(1, Double(completed) / Double($0)) : 0 } ?? 0
            lock.lock()
            // The final 1.0 is reserved for the step that carries the response.
            let monotonic = min(max(highestFraction, fraction), 0.999_999)
            highestFraction = monotonic
            lock.unlock()
            emit(ProgressResponse(progress: monotonic, completedBytes: completed, totalBytes: total))
        }
    }

    /// Reports the end of the transfer, with its response.
    func finish(with response: Response) {
        lock.lock()
        highestFraction = 1
        lock.unlock()
        let bytes = Int64(response.data.count)
        emit(ProgressResponse(progress: 1, completedBytes: bytes, totalBytes: bytes, response: response))
    }
}
