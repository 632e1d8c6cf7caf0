import Foundation

#if canImport(FoundationNetworking)
    /// The delegate queue of ``URLSessionTransport``'s session on Linux: it runs each block at
    /// once, on the thread that adds it, before `addOperation` returns.
    ///
    /// swift-corelibs-foundation delivers every delegate callback with
    /// `delegateQueue.addOperation { … }`, from its own serial work queue: a block of the
    /// body from inside libcurl's write callback, as libcurl decodes it. A queue that runs
    /// the blocks later holds every block that libcurl decodes meanwhile, without limit: on a
    /// busy machine a 200 MiB gzip bomb was decoded and queued whole (some 175 MiB held)
    /// before the delegate saw that the first 32 MiB had passed the bound. Run in place, each
    /// block is counted, and dropped past the bound, while libcurl waits; nothing piles up.
    /// (libcurl still decodes: corelibs always asks it to, and a hostile server sends gzip
    /// whatever `Accept-Encoding` says. What is bounded is what is held.) It is also the
    /// cheapest delivery: no `BlockOperation`, no thread hop.
    ///
    /// The price: callbacks run on the session's work queue, so the delegate never waits for
    /// that queue (it cancels a task, or answers a challenge, from another thread) and never
    /// blocks for long; a transport's `progress` closure runs there too. Callbacks still run
    /// one at a time and in order, since the work queue is serial. Operations added as
    /// `Operation` objects still go through the `OperationQueue` machinery; corelibs adds
    /// only blocks.
    final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
        // @unchecked: no stored property of its own; the OperationQueue base class does its
        // own locking.

        init(label: String) {
            super.init()
            name = label
            maxConcurrentOperationCount = 1
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }
    }
#endif
