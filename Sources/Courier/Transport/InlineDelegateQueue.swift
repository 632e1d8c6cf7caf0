import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    /// The delegate queue of ``URLSessionTransport``'s session on Linux: an `OperationQueue`
    /// whose blocks run, one at a time and in order, on a private serial `DispatchQueue`.
    ///
    /// swift-corelibs-foundation delivers every delegate callback with
    /// `delegateQueue.addOperation { … }` — three per small request (response, data,
    /// completion). A plain `OperationQueue` wraps each block in a `BlockOperation`, about
    /// 7 µs apiece on a 2-core Linux machine; a serial dispatch queue does the same job for
    /// about 1 µs, which measured ≈ 30 µs less per request on loopback. What the delegate
    /// relies on is kept: callbacks run serially, in the order they were added, and never on
    /// the session's own work queue (so a callback may call `URLSessionTask.cancel()`, which
    /// waits for that queue). Operations added as `Operation` objects still go through the
    /// `OperationQueue` machinery; corelibs adds only blocks.
    final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
        // @unchecked: the only stored property is an immutable DispatchQueue (Sendable); the
        // OperationQueue base class does its own locking.
        private let queue: DispatchQueue

        init(label: String) {
            queue = DispatchQueue(label: label)
            super.init()
            name = label
            maxConcurrentOperationCount = 1
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            queue.async(execute: block)
        }
    }
#endif
