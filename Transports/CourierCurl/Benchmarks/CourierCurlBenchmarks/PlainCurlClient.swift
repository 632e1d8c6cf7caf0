// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Foundation

/// libcurl without Courier, as a C program would drive it: the limit ``CurlTransport`` is
/// measured against, in the same process and against the same nginx.
///
/// Sequentially, one easy handle configured once and performed again and again
/// (`curl_easy_perform` on the calling thread: one wake-up per request, when the answer
/// arrives); with requests in flight, one multi handle with one configured easy handle per
/// request in flight, each added again as soon as it finishes. Each round runs on a thread of
/// its own, so that the blocking calls never hold one of Swift's cooperative threads. A
/// measurement, not product code: no redirects, time-outs or guarantees of any kind.
final class PlainCurlClient: @unchecked Sendable {
    // @unchecked: the handles and counters are used by one round's thread at a time; a round
    // starts only after the previous one has ended (each `sequential`/`concurrent` call awaits
    // its thread), and the thread's start and end order the hand-over.

    private let url: String
    private let expectedLength: Int
    private let certificateAuthorities: String?
    private var single: UnsafeMutableRawPointer?
    /// The body bytes of the sequential handle's current request.
    private let singleReceived = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    private var multi: UnsafeMutableRawPointer?
    private var handles: [UnsafeMutableRawPointer] = []
    private var received: UnsafeMutablePointer<Int>?
    private var headers: UnsafeMutablePointer<curl_slist>?

    /// A client of `url`, whose body is `expectedLength` bytes long; over HTTPS it trusts
    /// `certificateAuthorities` (a PEM file) and negotiates HTTP/2 as CurlTransport does.
    init(url: URL, expectedLength: Int, certificateAuthorities: URL? = nil) {
        self.url = url.absoluteString
        self.expectedLength = expectedLength
        self.certificateAuthorities = certificateAuthorities?.path
        _ = curl_global_init(courier_curl_global_all)
        headers = curl_slist_append(nil, "Accept: application/json")
    }

    deinit {
        if let multi {
            for easy in handles {
                curl_multi_remove_handle(multi, easy)
                curl_easy_cleanup(easy)
            }
            curl_multi_cleanup(multi)
        }
        if let single { curl_easy_cleanup(single) }
        received?.deallocate()
        singleReceived.deallocate()
        curl_slist_free_all(headers)
    }

    /// Sends `count` requests one after the other; returns how many failed.
    func sequential(_ count: Int) async -> Int {
        await onThread { [self] in
            if single == nil { single = configuredHandle(counting: singleReceived) }
            guard let easy = single else { return count }
            var failed = 0
            for _ in 0..<count {
                singleReceived.pointee = 0
                if curl_easy_perform(easy) != CURLE_OK || !succeeded(easy, received: singleReceived.pointee) {
                    failed += 1
                }
            }
            return failed
        }
    }

    /// Sends `count` requests, `width` in flight; returns how many failed.
    func concurrent(_ count: Int, width: Int) async -> Int {
        await onThread { [self] in
            if multi == nil {
                multi = curl_multi_init()
                received = .allocate(capacity: width)
                received?.initialize(repeating: 0, count: width)
                handles = (0..<width).compactMap { configuredHandle(counting: received! + $0) }
            }
            guard let multi, handles.count == width else { return count }
            var started = 0
            var failed = 0
            var done = 0
            for (index, easy) in handles.enumerated() where started < count {
                received![index] = 0
                curl_multi_add_handle(multi, easy)
                started += 1
            }
            while done < count {
                var running: Int32 = 0
                curl_multi_perform(multi, &running)
                var left: Int32 = 0
                while let message = curl_multi_info_read(multi, &left) {
                    guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                        let index = handles.firstIndex(of: easy)
                    else { continue }
                    done += 1
                    if message.pointee.data.result != CURLE_OK || !succeeded(easy, received: received![index]) {
                        failed += 1
                    }
                    curl_multi_remove_handle(multi, easy)
                    if started < count {
                        received![index] = 0
                        curl_multi_add_handle(multi, easy)
                        started += 1
                    }
                }
                // Returns at once when a handle added above has work to do.
                if done < count { curl_multi_poll(multi, nil, 0, 1000, nil) }
            }
            return failed
        }
    }

    private func succeeded(_ easy: UnsafeMutableRawPointer, received: Int) -> Bool {
        var status = 0
        return courier_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status == 200
            && received == expectedLength
    }

    /// A handle for the URL whose body bytes are counted into `counter`.
    private func configuredHandle(counting counter: UnsafeMutablePointer<Int>) -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else { return nil }
        _ = courier_easy_setopt_string(easy, CURLOPT_URL, url)
        _ = courier_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = courier_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers)
        _ = courier_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, plainCurlCount)
        _ = courier_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, UnsafeMutableRawPointer(counter))
        _ = courier_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = courier_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        if let certificateAuthorities { _ = courier_easy_setopt_string(easy, CURLOPT_CAINFO, certificateAuthorities) }
        return easy
    }

    private func onThread(_ work: @escaping @Sendable () -> Int) async -> Int {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = "CourierCurlBenchmarks.plain-libcurl"
            thread.start()
        }
    }
}

/// Counts the body's bytes into the `Int` that `userdata` points to.
private let plainCurlCount: courier_curl_data_callback = { _, size, count, userdata in
    userdata!.assumingMemoryBound(to: Int.self).pointee += size * count
    return size * count
}

#endif
