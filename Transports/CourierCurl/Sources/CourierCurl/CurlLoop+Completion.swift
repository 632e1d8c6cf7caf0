// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The end of a hop: a response, a redirect to follow, or an error. Under the driver lock.
extension CurlLoop {
    func complete(_ transfer: CurlTransfer, result: CURLcode) {
        if transfer.followsAtOnce {
            follow(transfer)
            return
        }
        guard result == CURLE_OK else {
            if transfer.mayResendUnprocessed(result, message: transfer.curlErrorMessage ?? "") {
                resendUnprocessed(transfer)
                return
            }
            let error = transfer.failure ?? curlError(result, transfer)
            release(transfer, added: true, keepDownload: false)
            finish(transfer, with: .failure(error))
            return
        }
        guard transfer.head.isComplete else {
            release(transfer, added: true, keepDownload: false)
            finish(
                transfer, with: .failure(transfer.urlError(.badServerResponse, "The response has no complete header.")))
            return
        }
        if transfer.discardsBody {
            follow(transfer)
            return
        }
        respond(transfer)
    }

    /// Ends the transfer with the response that arrived.
    ///
    /// The `HTTPURLResponse` is built when it is first read, off this thread (and not at all
    /// for a caller that reads only the status and the body): corelibs' initializer costs
    /// more than the rest of a loopback request.
    private func respond(_ transfer: CurlTransfer) {
        var downloadedFile: URL?
        if let download = transfer.download {
            do {
                try download.finish()
                downloadedFile = download.url
            } catch {
                release(transfer, added: true, keepDownload: false)
                finish(transfer, with: .failure(error))
                return
            }
        }
        if let easy = transfer.easy { transfer.metrics.add(hopOn: easy, url: transfer.hop.url) }
        let head = transfer.head
        let url = transfer.hop.url
        let response = Response(
            statusCode: head.statusCode, data: transfer.data, request: transfer.plan.originalRequest,
            deferredResponse: DeferredHTTPResponse {
                HTTPURLResponse(
                    url: url, statusCode: head.statusCode, httpVersion: head.httpVersion,
                    headerFields: head.headerFields)
            },
            metrics: transfer.metrics.metrics(redirects: transfer.redirectCount))
        release(transfer, added: true, keepDownload: true)
        finish(transfer, with: .success(.init(response: response, downloadedFile: downloadedFile)))
    }

    /// Sends the hop again on a new connection: its HTTP/2 stream was never processed.
    private func resendUnprocessed(_ transfer: CurlTransfer) {
        release(transfer, added: true, keepDownload: false)
        transfer.unprocessedResends += 1
        transfer.resetForNextHop()
        transfer.needsFreshConnection = true
        begin(transfer, now: CurlClock.now())
    }

    /// Sends the transfer on to its `Location`, as the redirect rules say.
    private func follow(_ transfer: CurlTransfer) {
        guard let target = transfer.redirectTarget else { return respond(transfer) }
        if let easy = transfer.easy { transfer.metrics.add(hopOn: easy, url: transfer.hop.url) }
        release(transfer, added: true, keepDownload: false)
        guard transfer.redirectCount < transfer.plan.maximumRedirects else {
            finish(
                transfer,
                with: .failure(
                    transfer.urlError(
                        .httpTooManyRedirects, "More than \(transfer.plan.maximumRedirects) redirects.")))
            return
        }
        transfer.redirectCount += 1
        transfer.hop = CurlRedirect.nextHop(after: transfer.hop, status: transfer.head.statusCode, to: target)
        transfer.resetForNextHop()
        begin(transfer, now: CurlClock.now())
    }

    private func curlError(_ result: CURLcode, _ transfer: CurlTransfer) -> URLError {
        let message = transfer.curlErrorMessage ?? String(cString: curl_easy_strerror(result))
        var osError = 0
        if let easy = transfer.easy, courier_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osError) == CURLE_OK,
            let exhausted = CurlErrors.descriptorExhaustion(errno: Int32(osError))
        {
            // Not the server's fault, and no retry can help while the process holds as many
            // descriptors: a code that RetryPolicy does not count as transient.
            return transfer.urlError(
                .cannotLoadFromNetwork, "\(exhausted) (\(message), libcurl error \(result.rawValue))",
                underlying: POSIXError(POSIXErrorCode(rawValue: Int32(osError)) ?? .EMFILE))
        }
        if let certificate = transfer.certificateError(result, message: message) { return certificate }
        if let refusal = transfer.proxyRefusalError(result, message: message) { return refusal }
        if let oversized = transfer.oversizedHeadError(result, message: message) { return oversized }
        return transfer.urlError(CurlErrors.code(for: result), "\(message) (libcurl error \(result.rawValue))")
    }
}

/// How a redirect changes the request, as browsers and `URLSession` do.
enum CurlRedirect {
    /// The headers that describe a body, dropped with it.
    static let bodyHeaders: Set<String> = ["content-type", "content-length", "content-encoding", "transfer-encoding"]

    static func nextHop(after hop: CurlTransfer.Hop, status: Int, to target: URL) -> CurlTransfer.Hop {
        var next = hop
        next.url = target
        let method = hop.method.uppercased()
        // 303 always becomes a GET (a HEAD stays a HEAD); 301 and 302 turn a POST into a GET,
        // as every browser does; 307 and 308 keep the method and the body.
        let becomesGet = (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST")
        if becomesGet {
            next.method = "GET"
            next.body = .none
            next.headers.removeAll { bodyHeaders.contains($0.name.lowercased()) }
        }
        if CrossOriginRedirect.isCrossOrigin(from: hop.url, to: target) {
            next.headers.removeAll { CrossOriginRedirect.dropsHeader(named: $0.name) }
        }
        return next
    }

    /// Whether following would take a body that carries a credential to another origin; the
    /// 3xx is then the answer, as with `URLSessionTransport` (`CrossOriginRedirect`).
    static func carriesCredentialAway(after hop: CurlTransfer.Hop, status: Int, to target: URL) -> Bool {
        guard CrossOriginRedirect.isCrossOrigin(from: hop.url, to: target) else { return false }
        let contentType = hop.headers.first { CurlASCII.equal($0.name, "Content-Type") }?.value
        switch nextHop(after: hop, status: status, to: target).body {
        case .none: return false
        case .data(let body): return CrossOriginRedirect.bodyCarriesCredential(body, contentType: contentType)
        case .file(let file, _):
            return CrossOriginRedirect.bodyCarriesCredential(contentsOf: file, contentType: contentType)
        }
    }
}

#endif
