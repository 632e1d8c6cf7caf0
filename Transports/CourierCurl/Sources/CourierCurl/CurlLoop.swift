// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Foundation

/// libcurl's initialisation, once per process, before the first handle.
private let curlGlobalInit: Void = {
    _ = curl_global_init(courier_curl_global_all)
}()

/// The thread that owns one libcurl multi handle and makes every libcurl call for it.
///
/// Other threads only queue commands (``submit(_:)``, ``cancel(_:)``, ``stop()``) and, when
/// the loop is asleep in `curl_multi_poll`, wake it with `curl_multi_wakeup`. Easy handles are
/// pooled and reset between requests; the multi handle's connection cache keeps connections
/// alive across requests.
final class CurlLoop: @unchecked Sendable {
    // @unchecked: `lock` guards `commands`, `isSleeping` and `isStopping`; every other field
    // is touched on the loop thread only (and `multi` is only read elsewhere, by
    // `curl_multi_wakeup`, under `lock`, before the loop thread cleans it up).

    private enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
    }

    /// The most idle easy handles kept for reuse.
    private static let poolLimit = 64
    /// The longest sleep between two looks at the time-outs, in milliseconds.
    private static let longestSleep: Int32 = 1000

    /// What the loop has done so far, for tests and diagnostics.
    struct Statistics: Sendable {
        /// Easy handles created; the rest of the requests reused pooled ones.
        var easyHandlesCreated = 0
        /// Connections libcurl opened; the rest of the requests reused kept-alive ones.
        var connectionsOpened = 0
        /// Hops sent (a redirect counts as a second hop).
        var hopsStarted = 0
        /// Times another thread woke the loop from `curl_multi_poll`.
        var wakeups = 0
    }

    private let lock = NSLock()
    private var stats = Statistics()
    private var commands: [Command] = []
    private var isSleeping = false
    private var isStopping = false
    private var multi: UnsafeMutableRawPointer?
    private var loopThread: pthread_t?

    // Loop thread only.
    private var pool: [UnsafeMutableRawPointer] = []
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// How many connections the multi handle keeps and opens.
    struct Limits {
        /// Idle connections kept for reuse.
        var idle: Int
        /// Connections open to one host at once.
        var perHost: Int
        /// Connections open at once in all.
        var total: Int

        /// `value` within 1 … 100,000 (libcurl reads a `long`; 0 would mean "no limit").
        static func clamped(_ value: Int) -> Int { max(1, min(value, 100_000)) }
    }

    /// Starts the loop thread, which creates the multi handle; returns once it has.
    init(limits: Limits) {
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            curlGlobalInit
            let multi = curl_multi_init()
            // The cache otherwise shrinks with the number of handles in use, and a quiet
            // spell (no handle in use) would close every kept-alive connection.
            _ = courier_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Limits.clamped(limits.idle))
            // Requests past these wait in libcurl's queue for a connection, instead of each
            // opening a socket until the process runs out of descriptors.
            _ = courier_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, Limits.clamped(limits.perHost))
            _ = courier_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, Limits.clamped(limits.total))
            // Concurrent requests to one host share an HTTP/2 connection (libcurl's default
            // since 7.62, set so that it does not depend on the build).
            _ = courier_multi_setopt_long(multi, CURLMOPT_PIPELINING, courier_curlpipe_multiplex)
            lock.withLock {
                self.multi = multi
                loopThread = pthread_self()
            }
            ready.signal()
            if let multi { run(multi) }
        }
        thread.name = Self.threadName
        thread.start()
        ready.wait()
    }

    /// The loop thread's name, which libcurl's callbacks (and progress closures) run on.
    static let threadName = "Courier.CurlTransport"

    /// Whether the caller runs on the loop thread.
    var isOnLoopThread: Bool {
        lock.withLock { loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// What the loop has done so far.
    var statistics: Statistics {
        lock.withLock { stats }
    }

    /// Hands `transfer` to the loop; its continuation gets the outcome.
    func submit(_ transfer: CurlTransfer) {
        if !enqueue(.start(transfer)) {
            transfer.continuation?.resume(throwing: CancellationError())
            transfer.continuation = nil
        }
    }

    /// Stops `transfer` if it is still running; its continuation gets `CancellationError`.
    func cancel(_ transfer: CurlTransfer) {
        _ = enqueue(.cancel(transfer))
    }

    /// Ends the loop: running transfers fail with `CancellationError`, and the thread
    /// releases every handle and exits.
    func stop() {
        lock.withLock {
            isStopping = true
            if isSleeping, let multi {
                isSleeping = false
                curl_multi_wakeup(multi)
            }
        }
    }

    /// Queues `command`, waking the loop only if it sleeps; `false` once the loop stopped.
    private func enqueue(_ command: Command) -> Bool {
        lock.withLock {
            guard !isStopping, let multi else { return false }
            commands.append(command)
            if isSleeping {
                isSleeping = false
                stats.wakeups += 1
                curl_multi_wakeup(multi)
            }
            return true
        }
    }

    // MARK: - The loop thread

    private func run(_ multi: UnsafeMutableRawPointer) {
        while true {
            let (pending, stopping) = lock.withLock { () -> ([Command], Bool) in
                defer { commands.removeAll(keepingCapacity: true) }
                return (commands, isStopping)
            }
            if stopping { break }
            for command in pending {
                switch command {
                case .start(let transfer): start(transfer, multi: multi)
                case .cancel(let transfer): cancelRunning(transfer, multi: multi)
                }
            }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished(multi: multi)
            let timeout = expireIdleTransfers(multi: multi)
            let sleeps = lock.withLock { () -> Bool in
                guard commands.isEmpty, !isStopping else { return false }
                isSleeping = true
                return true
            }
            if sleeps {
                _ = curl_multi_poll(multi, nil, 0, timeout, nil)
                lock.withLock { isSleeping = false }
            }
        }
        shutDown(multi: multi)
    }

    private func start(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        guard !transfer.isCancellationRequested else {
            finish(transfer, with: .failure(CancellationError()))
            return
        }
        let now = CurlClock.now()
        transfer.startedAt = now
        begin(transfer, multi: multi, now: now)
    }

    /// Starts the transfer's current hop on an easy handle from the pool.
    func begin(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer, now: UInt64) {
        let pooled = pool.popLast()
        guard let easy = pooled ?? curl_easy_init() else {
            finish(transfer, with: .failure(transfer.urlError(.cannotLoadFromNetwork, "libcurl is out of memory.")))
            return
        }
        do {
            try transfer.configure(easy, now: now)
        } catch {
            release(transfer, multi: multi, added: false, keepDownload: false)
            finish(transfer, with: .failure(error))
            return
        }
        active[easy] = transfer
        lock.withLock {
            stats.hopsStarted += 1
            if pooled == nil { stats.easyHandlesCreated += 1 }
        }
        _ = curl_multi_add_handle(multi, easy)
    }

    private func cancelRunning(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        guard let easy = transfer.easy, active[easy] === transfer else { return }
        release(transfer, multi: multi, added: true, keepDownload: false)
        finish(transfer, with: .failure(CancellationError()))
    }

    private func collectFinished(multi: UnsafeMutableRawPointer) {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = active[easy]
            else { continue }
            let result = message.pointee.data.result
            complete(transfer, result: result, multi: multi)
        }
    }

    /// Fails every transfer whose idle or whole-request time-out has passed; returns how
    /// long the loop may sleep before the next one would.
    private func expireIdleTransfers(multi: UnsafeMutableRawPointer) -> Int32 {
        guard !active.isEmpty else { return Self.longestSleep }
        let now = CurlClock.now()
        var nearest = UInt64(Self.longestSleep) * 1_000_000
        for transfer in Array(active.values) {
            let idleDeadline = transfer.lastActivity &+ transfer.plan.idleTimeout
            let wholeDeadline = transfer.startedAt &+ UInt64(transfer.plan.resourceTimeout) * 1_000_000
            let deadline = min(idleDeadline, wholeDeadline)
            if now >= deadline {
                release(transfer, multi: multi, added: true, keepDownload: false)
                finish(transfer, with: .failure(transfer.urlError(.timedOut, "The request timed out.")))
            } else {
                nearest = min(nearest, deadline - now)
            }
        }
        return Int32(max(1, (nearest + 999_999) / 1_000_000))
    }

    /// Takes the transfer's easy handle back: out of the multi, reset, into the pool.
    func release(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer, added: Bool, keepDownload: Bool) {
        if let easy = transfer.easy {
            var connects = 0
            if courier_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK, connects > 0 {
                lock.withLock { stats.connectionsOpened += connects }
            }
            if added { _ = curl_multi_remove_handle(multi, easy) }
            active[easy] = nil
            curl_easy_reset(easy)
            if pool.count < Self.poolLimit {
                pool.append(easy)
            } else {
                curl_easy_cleanup(easy)
            }
        }
        transfer.easy = nil
        transfer.releaseResources(keepDownload: keepDownload)
    }

    /// Resumes the transfer's continuation, once.
    func finish(_ transfer: CurlTransfer, with result: Result<CurlTransfer.Outcome, any Error>) {
        let continuation = transfer.continuation
        transfer.continuation = nil
        continuation?.resume(with: result)
    }

    private func shutDown(multi: UnsafeMutableRawPointer) {
        for transfer in Array(active.values) {
            release(transfer, multi: multi, added: true, keepDownload: false)
            finish(transfer, with: .failure(CancellationError()))
        }
        let leftover = lock.withLock { () -> [Command] in
            self.multi = nil
            defer { commands.removeAll() }
            return commands
        }
        for case .start(let transfer) in leftover {
            finish(transfer, with: .failure(CancellationError()))
        }
        for easy in pool { curl_easy_cleanup(easy) }
        pool.removeAll()
        curl_multi_cleanup(multi)
    }
}

#endif
