// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Foundation

/// libcurl's initialisation, once per process, before the first handle.
private let curlGlobalInit: Void = {
    _ = curl_global_init(courier_curl_global_all)
}()

/// One libcurl multi handle, the thread that waits for its sockets, and the lock that makes
/// one thread at a time the one that drives it.
///
/// libcurl runs socket-driven (`curl_multi_socket_action`): its sockets sit in an epoll set
/// that the loop thread waits on without holding ``driver``. So a task that sends a request
/// while nobody drives libcurl starts it itself — a pooled easy handle, configured and added,
/// and libcurl writes the request on a kept-alive connection — and the loop thread wakes only
/// when the answer arrives: one wake-up for the answer and one for the task it resumes, where
/// handing the request over would cost a third. While the driver is busy (other requests in
/// flight), a task queues its request, and the loop takes it on its next turn without being
/// woken. A request with a progress callback always goes through the queue, and while one is
/// in flight every request does: libcurl may call any transfer's callbacks when it is driven,
/// and progress callbacks run on the loop thread.
final class CurlLoop: @unchecked Sendable {
    // @unchecked: `lock` guards `commands`, `isSleeping`, `isStopping`, `isClosed`,
    // `threadEnded`, `endWaiters`, `stats` and `loopThread`; `driver` guards the multi
    // handle and everything under "Under `driver`" (and each transfer from the moment it is
    // started until its continuation is resumed): held by the loop thread while it works, and
    // by a sending task that found it free.

    private enum Command {
        case start(CurlTransfer)
        case cancel(CurlTransfer)
    }

    /// The most idle easy handles kept for reuse.
    private static let poolLimit = 64
    /// The longest sleep between two looks at the time-outs, in milliseconds.
    private static let longestSleep: Int32 = 1000
    /// The most sockets handled per wake-up (the rest wait for the next turn).
    private static let eventCapacity = 64

    /// What the loop has done so far, for tests and diagnostics.
    struct Statistics: Sendable {
        /// Easy handles created; the rest of the requests reused pooled ones.
        var easyHandlesCreated = 0
        /// Connections libcurl opened; the rest of the requests reused kept-alive ones.
        var connectionsOpened = 0
        /// Hops sent (a redirect counts as a second hop).
        var hopsStarted = 0
        /// Requests that the sending task started itself, without waking the loop.
        var startedInPlace = 0
        /// Times another thread woke the loop from its wait.
        var wakeups = 0
    }

    private let lock = NSLock()
    private var stats = Statistics()
    private var commands: [Command] = []
    private var isSleeping = false
    private var isStopping = false
    /// Stopped by ``close()``: transfers fail with ``CurlTransportClosedError``, not
    /// `CancellationError`.
    private var isClosed = false
    /// The loop thread has released every handle and connection and is about to exit.
    private var threadEnded = false
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var loopThread: pthread_t?

    /// Held by whoever drives libcurl.
    private let driver = NSLock()

    // Under `driver`.
    private let multi: UnsafeMutableRawPointer
    private let poller = CurlPoller()
    private var pool: [UnsafeMutableRawPointer] = []
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// When libcurl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` (monotonic
    /// nanoseconds); `nil`: it wants nothing.
    private var curlDeadline: UInt64?
    /// Bumped whenever libcurl sets its timer.
    private var timerChanges = 0
    /// When the loop's current wait ends (monotonic nanoseconds).
    private var wakesAt: UInt64 = 0
    /// Transfers with a progress callback in the multi handle.
    private var progressTransfers = 0

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

    /// Creates the multi handle and starts the loop thread; returns once it runs.
    init(limits: Limits) {
        curlGlobalInit
        multi = curl_multi_init()
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = courier_multi_setopt_socket_callback(multi, curlSocketCallback)
        _ = courier_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        _ = courier_multi_setopt_timer_callback(multi, curlTimerCallback)
        _ = courier_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
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
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            lock.withLock { loopThread = pthread_self() }
            ready.signal()
            run()
        }
        thread.name = Self.threadName
        thread.start()
        ready.wait()
    }

    /// The loop thread's name, which progress closures run on.
    static let threadName = "Courier.CurlTransport"

    /// Whether the caller runs on the loop thread.
    var isOnLoopThread: Bool {
        lock.withLock { loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// What the loop has done so far.
    var statistics: Statistics {
        lock.withLock { stats }
    }

    /// Hands `transfer` to the loop, or starts it on the calling thread when nobody drives
    /// libcurl; its task gets the outcome.
    func submit(_ transfer: CurlTransfer) {
        if transfer.plan.progress == nil, driver.try() {
            if startInPlace(transfer) { return }
        }
        if !enqueue(.start(transfer)) {
            transfer.deliver(.failure(stoppedError(for: transfer, inFlight: false)))
        }
    }

    /// Whether ``close()`` was called.
    var isClosedForSending: Bool {
        lock.withLock { isClosed }
    }

    /// Whether the loop thread has closed every connection and released every handle.
    var hasEnded: Bool {
        lock.withLock { threadEnded }
    }

    /// Ends the loop as ``stop()`` does, but running transfers fail with
    /// ``CurlTransportClosedError``, and so does every later one; returns once the thread has
    /// closed every connection, released every handle and is exiting.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = lock.withLock { () -> Bool in
                isClosed = true
                isStopping = true
                wakeLocked()
                guard !threadEnded else { return true }
                endWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// What a transfer that the stopped loop will not finish fails with.
    private func stoppedError(for transfer: CurlTransfer, inFlight: Bool) -> any Error {
        guard lock.withLock({ isClosed }) else { return CancellationError() }
        return CurlTransportClosedError(method: transfer.plan.method, url: transfer.plan.url, wasInFlight: inFlight)
    }

    /// Stops `transfer` if it is still running; its task gets `CancellationError`.
    func cancel(_ transfer: CurlTransfer) {
        _ = enqueue(.cancel(transfer))
    }

    /// Ends the loop: running transfers fail with `CancellationError`, and the thread
    /// releases every handle and exits.
    func stop() {
        lock.withLock {
            isStopping = true
            wakeLocked()
        }
    }

    /// Queues `command`, waking the loop only if it sleeps; `false` once the loop stopped.
    private func enqueue(_ command: Command) -> Bool {
        lock.withLock {
            guard !isStopping else { return false }
            commands.append(command)
            wakeLocked()
            return true
        }
    }

    /// Wakes the loop if it sleeps. Under `lock`.
    private func wakeLocked() {
        guard isSleeping else { return }
        isSleeping = false
        stats.wakeups += 1
        poller.wake()
    }

    /// Starts `transfer` on the calling thread, which holds `driver`, and lets it go; `false`
    /// (with nothing done) when the request must be queued instead.
    private func startInPlace(_ transfer: CurlTransfer) -> Bool {
        let stopping = lock.withLock { isStopping }
        guard !stopping, progressTransfers == 0 else {
            driver.unlock()
            return false
        }
        poller.tick()
        start(transfer)
        runDueTimers()
        collectFinished()
        // The loop sleeps until `wakesAt`: it must wake sooner if libcurl or this request's
        // time-outs want it to (another hop to start, a connection to time out).
        var soonest = curlDeadline ?? .max
        if transfer.easy != nil { soonest = min(soonest, transfer.deadline) }
        let wakesTooLate = soonest < wakesAt
        driver.unlock()
        lock.withLock {
            stats.startedInPlace += 1
            if wakesTooLate { wakeLocked() }
        }
        return true
    }

    // MARK: - The loop thread

    private func run() {
        var fds = [Int32](repeating: 0, count: Self.eventCapacity)
        var events = [UInt32](repeating: 0, count: Self.eventCapacity)
        var ready = 0
        driver.lock()
        poller.tick()
        while true {
            let (pending, stopping) = lock.withLock { () -> ([Command], Bool) in
                defer { commands.removeAll(keepingCapacity: true) }
                return (commands, isStopping)
            }
            if stopping { break }
            for command in pending {
                switch command {
                case .start(let transfer): start(transfer)
                case .cancel(let transfer): cancelRunning(transfer)
                }
            }
            for index in 0..<ready where poller.isForLibcurl(fds[index]) {
                act(on: fds[index], events: events[index])
            }
            runDueTimers()
            collectFinished()
            let timeout = sleepTimeout()
            let sleeps = lock.withLock { () -> Bool in
                guard commands.isEmpty, !isStopping else { return false }
                isSleeping = true
                return true
            }
            ready = 0
            if sleeps {
                wakesAt = CurlClock.now() &+ UInt64(timeout) * 1_000_000
                driver.unlock()
                let count = poller.wait(into: &fds, &events, timeout: timeout)
                lock.withLock { isSleeping = false }
                driver.lock()
                poller.tick()
                ready = count
            }
        }
        shutDown()
        driver.unlock()
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            threadEnded = true
            defer { endWaiters.removeAll() }
            return endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Tells libcurl what happened on `socket`.
    private func act(on socket: Int32, events: UInt32) {
        var mask: Int32 = 0
        if events & courier_poll_in != 0 { mask |= CURL_CSELECT_IN }
        if events & courier_poll_out != 0 { mask |= CURL_CSELECT_OUT }
        if events & courier_poll_error != 0 { mask |= CURL_CSELECT_ERR }
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, socket, mask, &running)
    }

    /// Runs libcurl's timer if it is due: a handle just added, a connection's time-out.
    private func runDueTimers() {
        var rounds = 0
        while rounds < 4, let deadline = curlDeadline, deadline <= CurlClock.now() {
            rounds += 1
            let changes = timerChanges
            var running: Int32 = 0
            _ = curl_multi_socket_action(multi, courier_curl_socket_bad, 0, &running)
            // libcurl says nothing when its next deadline is the one it had (what fired was
            // early by its clock): ask it how long is left, and wait a millisecond at least,
            // so that a deadline left in the past never makes the loop spin (a sanitized run
            // once found it in epoll_wait with no time-out, for minutes).
            if timerChanges == changes {
                var milliseconds = -1
                _ = curl_multi_timeout(multi, &milliseconds)
                curlDeadline =
                    milliseconds < 0
                    ? nil : CurlClock.now() &+ UInt64(max(1, min(milliseconds, Int(Int32.max)))) &* 1_000_000
                break
            }
        }
    }

    /// libcurl's socket callback: watch `socket` for what libcurl waits for, or no more.
    fileprivate func watch(_ socket: curl_socket_t, what: Int32) {
        poller.watch(socket, curlEvents: what)
    }

    /// libcurl's timer callback: it wants to be run in `milliseconds`, or never (-1).
    fileprivate func setTimer(_ milliseconds: Int) {
        timerChanges &+= 1
        switch milliseconds {
        case ..<0: curlDeadline = nil
        case 0: curlDeadline = poller.now
        // A millisecond more: libcurl rounds what is left down, and a timer that fires before
        // its time by libcurl's clock does nothing and is not set again.
        default: curlDeadline = CurlClock.now() &+ UInt64(min(milliseconds, Int(Int32.max)) + 1) &* 1_000_000
        }
    }

    private func start(_ transfer: CurlTransfer) {
        guard !transfer.isCancellationRequested else {
            finish(transfer, with: .failure(CancellationError()))
            return
        }
        transfer.poller = poller
        transfer.startedAt = poller.now
        begin(transfer, now: poller.now)
    }

    /// Starts the transfer's current hop on an easy handle from the pool.
    func begin(_ transfer: CurlTransfer, now: UInt64) {
        let pooled = pool.popLast()
        guard let easy = pooled ?? curl_easy_init() else {
            finish(transfer, with: .failure(transfer.urlError(.cannotLoadFromNetwork, "libcurl is out of memory.")))
            return
        }
        do {
            try transfer.configure(easy, now: now)
        } catch {
            release(transfer, added: false, keepDownload: false)
            finish(transfer, with: .failure(error))
            return
        }
        active[easy] = transfer
        if transfer.plan.progress != nil { progressTransfers += 1 }
        lock.withLock {
            stats.hopsStarted += 1
            if pooled == nil { stats.easyHandlesCreated += 1 }
        }
        _ = curl_multi_add_handle(multi, easy)
    }

    private func cancelRunning(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy, active[easy] === transfer else { return }
        release(transfer, added: true, keepDownload: false)
        finish(transfer, with: .failure(CancellationError()))
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = active[easy]
            else { continue }
            let result = message.pointee.data.result
            complete(transfer, result: result)
        }
    }

    /// Fails every transfer whose idle or whole-request time-out has passed; returns how
    /// long the loop may sleep before the next time-out, its own or libcurl's.
    private func sleepTimeout() -> Int32 {
        let now = CurlClock.now()
        var nearest = UInt64(Self.longestSleep) * 1_000_000
        if let curlDeadline { nearest = curlDeadline <= now ? 0 : min(nearest, curlDeadline - now) }
        var expired: [CurlTransfer] = []
        for transfer in active.values {
            let deadline = transfer.deadline
            if now >= deadline {
                expired.append(transfer)
            } else {
                nearest = min(nearest, deadline - now)
            }
        }
        for transfer in expired {
            release(transfer, added: true, keepDownload: false)
            finish(transfer, with: .failure(transfer.urlError(.timedOut, "The request timed out.")))
        }
        return Int32((nearest + 999_999) / 1_000_000)
    }

    /// Takes the transfer's easy handle back: out of the multi, reset, into the pool.
    func release(_ transfer: CurlTransfer, added: Bool, keepDownload: Bool) {
        if let easy = transfer.easy {
            var connects = 0
            if courier_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK, connects > 0 {
                lock.withLock { stats.connectionsOpened += connects }
            }
            if added { _ = curl_multi_remove_handle(multi, easy) }
            if active.removeValue(forKey: easy) != nil, transfer.plan.progress != nil { progressTransfers -= 1 }
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

    /// Ends the transfer with `result`, once.
    func finish(_ transfer: CurlTransfer, with result: Result<CurlTransfer.Outcome, any Error>) {
        transfer.deliver(result)
    }

    private func shutDown() {
        for transfer in Array(active.values) {
            release(transfer, added: true, keepDownload: false)
            finish(transfer, with: .failure(stoppedError(for: transfer, inFlight: true)))
        }
        let leftover = lock.withLock { () -> [Command] in
            defer { commands.removeAll() }
            return commands
        }
        for case .start(let transfer) in leftover {
            finish(transfer, with: .failure(stoppedError(for: transfer, inFlight: false)))
        }
        for easy in pool { curl_easy_cleanup(easy) }
        pool.removeAll()
        curl_multi_cleanup(multi)
        poller.close()
    }
}

/// libcurl wants `socket` watched for `what` (`CURL_POLL_IN`, `_OUT`, `_INOUT`) or no more
/// (`CURL_POLL_REMOVE`). Called by whoever drives libcurl.
private let curlSocketCallback: courier_curl_socket_callback = { _, socket, what, userdata, _ in
    Unmanaged<CurlLoop>.fromOpaque(userdata!).takeUnretainedValue().watch(socket, what: what)
    return 0
}

/// libcurl wants to be run in `timeout` milliseconds (0: at once; -1: never).
private let curlTimerCallback: courier_curl_timer_callback = { _, timeout, userdata in
    Unmanaged<CurlLoop>.fromOpaque(userdata!).takeUnretainedValue().setTimer(timeout)
    return 0
}

#endif
