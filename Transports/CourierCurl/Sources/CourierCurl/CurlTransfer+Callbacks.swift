// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// libcurl's callbacks, on the loop thread (inside curl_multi_perform). Each gets the
// transfer, unretained: the loop holds it for as long as its easy handle is in use.

/// One header line (status line and the blank line included).
let curlHeaderCallback: courier_curl_data_callback = { buffer, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    let length = size * count
    return transfer.takeHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

/// A block of the (decoded) body.
let curlWriteCallback: courier_curl_data_callback = { buffer, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    let length = size * count
    return transfer.takeBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

/// The next block of the upload.
let curlReadCallback: courier_curl_data_callback = { buffer, size, count, userdata in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    return transfer.readUpload(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

/// libcurl wants to send the upload again from `offset` (a resend on a new connection).
let curlSeekCallback: courier_curl_seek_callback = { userdata, offset, origin in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    return transfer.rewindUpload(to: Int64(offset), origin: origin)
}

/// libcurl is about to send the request on a connection, once per attempt.
let curlPrereqCallback: courier_curl_prereq_callback = { userdata, _, _, _, _ in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    return transfer.willSendRequest() ? courier_curl_prereqfunc_ok : courier_curl_prereqfunc_abort
}

/// libcurl needs a socket for a new connection.
let curlOpenSocketCallback: courier_curl_opensocket_callback = { userdata, _, address in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue()
    guard let address else { return courier_curl_socket_bad }
    return transfer.openSocket(address.pointee)
}

extension CurlTransfer {
    /// The status codes whose `Location` the transport follows.
    static let redirectCodes: Set<Int> = [301, 302, 303, 307, 308]
    /// The most of a redirect's body that is read (and dropped) to keep its connection.
    static let longestDiscardedBody = 64 * 1024

    /// Returns `false` to stop the transfer (``failure`` says why).
    func takeHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        lastActivity = poller?.now ?? CurlClock.now()
        switch head.take(line) {
        case .more:
            return true
        case .invalid:
            failure = urlError(.cannotParseResponse, "The response's header is invalid or larger than 1 MiB.")
            return false
        case .tooManyInterimResponses:
            // As URLSessionTransport: a server sending `100 Continue` forever is cut off,
            // whatever the time-outs.
            failure = urlError(
                .badServerResponse,
                "The server sent more than \(CurlResponseHead.maximumInterimResponses) interim (1xx) responses "
                    + "and no answer.")
            return false
        case .complete:
            return headersComplete()
        }
    }

    private func headersComplete() -> Bool {
        let status = head.statusCode
        // Only http(s) is followed; any other Location (file:, a custom scheme) leaves the
        // 3xx as the answer, as URLSessionTransport does.
        if Self.redirectCodes.contains(status), let location = head.location,
            let target = URL(string: location, relativeTo: hop.url)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
            !CurlRedirect.carriesCredentialAway(after: hop, status: status, to: target),
            // A same-origin hop whose request the caller re-signs goes back to the task.
            !(plan.signsSameOriginRedirects && !CrossOriginRedirect.isCrossOrigin(from: hop.url, to: target))
        {
            redirectTarget = target
            discardsBody = true
            return true
        }
        expectedBytes = head.isContentCoded ? nil : head.contentLength
        if plan.wantsDownload, let directory = plan.transferDirectory, (200..<300).contains(status) {
            do {
                download = try CurlDownloadFile(in: directory)
            } catch {
                failure = error
                return false
            }
            return true
        }
        let hasNoBody = hop.method.uppercased() == "HEAD" || status == 204 || status == 304
        if !hasNoBody, let length = head.contentLength {
            guard length <= Int64(plan.maximumBodySize) else {
                failure = tooLarge()
                return false
            }
            // Coded bodies grow when decoded; a plain one is exactly this long.
            if !head.isContentCoded { data.reserveCapacity(Int(length)) }
        }
        return true
    }

    /// Returns `false` to stop the transfer (``failure`` says why).
    func takeBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = poller?.now ?? CurlClock.now()
        if discardsBody {
            // A redirect's body is dropped; a long one (a hostile server's endless body)
            // ends the hop early, and the redirect is followed all the same.
            discardedBytes += bytes.count
            if discardedBytes > Self.longestDiscardedBody {
                followsAtOnce = true
                return false
            }
            return true
        }
        if let download {
            do {
                try download.write(bytes)
            } catch {
                failure = error
                return false
            }
        } else {
            guard data.count + bytes.count <= plan.maximumBodySize else {
                failure = tooLarge()
                return false
            }
            data.append(contentsOf: bytes)
        }
        receivedBytes += Int64(bytes.count)
        if let progress = plan.progress, !plan.reportsUpload {
            progress(receivedBytes, expectedBytes)
        }
        return true
    }

    func readUpload(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        lastActivity = poller?.now ?? CurlClock.now()
        guard let upload else { return 0 }
        do {
            let count = try upload.read(into: buffer)
            sentBytes += Int64(count)
            if count > 0, let progress = plan.progress, plan.reportsUpload {
                progress(sentBytes, hop.body.size)
            }
            return count
        } catch {
            failure = error
            return courier_curl_readfunc_abort
        }
    }

    func rewindUpload(to offset: Int64, origin: Int32) -> Int32 {
        // libcurl rewinds when it resends on its own (a kept-alive connection the server
        // closed after reading the body looks stale to it). As in URLSessionTransport, only an
        // idempotent file upload goes again; anything else fails as a lost connection, so a
        // non-idempotent request is never sent twice behind the caller's back, and a retry
        // is the RetryPolicy's to count.
        guard plan.isIdempotent, case .file = hop.body, origin == SEEK_SET, let upload, upload.seek(to: offset)
        else {
            failure = notResent()
            return courier_curl_seekfunc_cantseek
        }
        sentBytes = offset
        return courier_curl_seekfunc_ok
    }

    /// A socket for libcurl's new connection, closed on exec. When the process (or the
    /// system) is out of descriptors, ``failure`` says so: libcurl itself would report only
    /// that it could not connect, which reads as the server's fault and is retried.
    func openSocket(_ address: curl_sockaddr) -> curl_socket_t {
        let socket = Glibc.socket(address.family, address.socktype | Int32(SOCK_CLOEXEC.rawValue), address.protocol)
        if socket < 0, let exhausted = CurlErrors.descriptorExhaustion(errno: errno) {
            failure = urlError(
                .cannotLoadFromNetwork, exhausted, underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE))
        }
        if socket < 0 { return courier_curl_socket_bad }
        poller?.adopt(socket)
        return socket
    }

    func willSendRequest() -> Bool {
        sendAttempts += 1
        // A second attempt is libcurl retrying on a fresh connection after a reused one
        // died: harmless for an idempotent request, not for a POST the server may have seen.
        if sendAttempts > 1, !plan.isIdempotent {
            failure = notResent()
            return false
        }
        return true
    }

    func urlError(_ code: URLError.Code, _ description: String, underlying: (any Error)? = nil) -> URLError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: "\(hop.method) \(CurlErrors.redacted(hop.url)): \(description)",
            NSURLErrorFailingURLErrorKey: hop.url,
        ]
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return URLError(code, userInfo: userInfo)
    }

    private func tooLarge() -> URLError {
        urlError(.dataLengthExceedsMaximum, "The response body is larger than \(plan.maximumBodySize) bytes.")
    }

    private func notResent() -> URLError {
        urlError(.networkConnectionLost, "The connection was lost after the request was sent; it was not sent again.")
    }
}

#endif
