// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The loop's epoll set, the sockets in it, its wake-up descriptor, and the time as of the
/// moment the driver lock was last taken. Under the loop's driver lock, except ``wait`` (the
/// loop thread, without the lock: epoll lets another thread change the set meanwhile) and
/// ``wake()`` (any thread).
///
/// libcurl asks to stop watching a kept-alive connection's socket at the end of every
/// transfer and to watch it again at the start of the next: an `epoll_ctl` each time. So a
/// socket the transport opened stays in the set, parked, while libcurl does not watch it, and
/// is watched again without a system call; an event on a parked socket (the server closed the
/// idle connection) removes it then. The transport knows when such a socket is closed
/// (``forget(_:)``, libcurl's close-socket callback), so a descriptor number reused by another
/// socket is never mistaken for a parked one.
final class CurlPoller {
    private struct Entry {
        /// What the epoll set watches the socket for.
        var events: UInt32
        /// Whether libcurl waits on it; a socket it no longer watches is parked.
        var watched: Bool
    }

    let descriptor: Int32
    private let wakeup: Int32
    private var entries: [Int32: Entry] = [:]
    /// Sockets the transport opened (``adopt(_:)``) and that are not closed yet.
    private var ownSockets: Set<Int32> = []

    /// Monotonic nanoseconds as of the moment the driver lock was last taken, which libcurl's
    /// callbacks read for the transfers' idle time-outs instead of asking the clock at every
    /// header line (on this path the clock is a measurable share of a request).
    private(set) var now: UInt64 = CurlClock.now()

    init() {
        descriptor = courier_poller_create()
        wakeup = courier_wakeup_create()
        _ = courier_poller_watch(descriptor, wakeup, courier_poll_in)
    }

    /// Reads the clock; called on taking the driver lock.
    func tick() {
        now = CurlClock.now()
    }

    /// libcurl waits for `events` on `socket` (`CURL_POLL_*`), or no more.
    func watch(_ socket: Int32, curlEvents what: Int32) {
        if what == CURL_POLL_REMOVE {
            guard let entry = entries[socket] else { return }
            if ownSockets.contains(socket), entry.events == courier_poll_in {
                entries[socket]?.watched = false
            } else {
                _ = courier_poller_unwatch(descriptor, socket)
                entries[socket] = nil
            }
            return
        }
        var events: UInt32 = 0
        if what & CURL_POLL_IN != 0 { events |= courier_poll_in }
        if what & CURL_POLL_OUT != 0 { events |= courier_poll_out }
        if entries[socket]?.events != events {
            _ = courier_poller_watch(descriptor, socket, events)
        }
        entries[socket] = Entry(events: events, watched: true)
    }

    /// The transport opened `socket` for libcurl.
    func adopt(_ socket: Int32) {
        // A socket just opened is in no epoll set, whatever a closed one of the same number was.
        entries[socket] = nil
        ownSockets.insert(socket)
    }

    /// libcurl closes `socket`, which the transport opened (closing removes it from the set).
    func forget(_ socket: Int32) {
        entries[socket] = nil
        ownSockets.remove(socket)
    }

    /// Whether an event on `socket` is for libcurl; `false` for the wake-up descriptor (then
    /// drained) and for a parked socket (then removed from the set).
    func isForLibcurl(_ socket: Int32) -> Bool {
        if socket == wakeup {
            courier_wakeup_drain(wakeup)
            return false
        }
        if entries[socket]?.watched == false {
            _ = courier_poller_unwatch(descriptor, socket)
            entries[socket] = nil
            return false
        }
        return true
    }

    /// Waits up to `timeout` milliseconds for events, into `sockets` and `events`; returns
    /// how many arrived. The loop thread, without the driver lock.
    func wait(into sockets: inout [Int32], _ events: inout [UInt32], timeout: Int32) -> Int {
        max(
            0, Int(courier_poller_wait(descriptor, &sockets, &events, Int32(min(sockets.count, events.count)), timeout))
        )
    }

    /// Wakes the loop from ``wait``. Any thread.
    func wake() {
        courier_wakeup_signal(wakeup)
    }

    /// Closes the set and the wake-up descriptor, once the loop has ended.
    func close() {
        _ = Glibc.close(descriptor)
        _ = Glibc.close(wakeup)
    }
}

/// libcurl closes a socket that the transport opened (`CURLOPT_CLOSESOCKETFUNCTION`, whose data
/// is the loop's poller: a connection outlives the transfer that opened it).
let curlCloseSocketCallback: courier_curl_closesocket_callback = { userdata, socket in
    Unmanaged<CurlPoller>.fromOpaque(userdata!).takeUnretainedValue().forget(socket)
    return Glibc.close(socket)
}

#endif
