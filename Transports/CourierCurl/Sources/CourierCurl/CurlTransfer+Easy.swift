// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Foundation

/// Setting up an easy handle for the current hop. Loop thread only.
extension CurlTransfer {
    /// The size of libcurl's upload buffer, so large uploads move in big blocks whatever
    /// libcurl's default. The receive buffer keeps libcurl's default:
    /// libcurl 7.88 refuses `CURLOPT_BUFFERSIZE` on a handle that still holds its receive
    /// buffer, which a pooled handle does after an HTTP/2 transfer whose connection other
    /// streams were still using; a handle's options must be settable on any reused handle.
    static let uploadBufferSize = 64 * 1024

    /// Configures `easy`, freshly reset (or new), for ``hop``.
    ///
    /// - Throws: the upload file's error, or ``CurlTransportError/optionRefused(option:reason:)``
    ///   naming the option libcurl refused and why.
    func configure(_ easy: UnsafeMutableRawPointer, now: UInt64) throws {
        self.easy = easy
        lastActivity = now
        let me = Unmanaged.passUnretained(self).toOpaque()
        var refused: (option: CURLoption, code: CURLcode)?
        func check(_ code: CURLcode, _ option: CURLoption) {
            if code != CURLE_OK, refused == nil { refused = (option, code) }
        }
        func set(_ option: CURLoption, _ value: Int) {
            check(courier_easy_setopt_long(easy, option, value), option)
        }
        func set(_ option: CURLoption, _ value: String) {
            check(courier_easy_setopt_string(easy, option, value), option)
        }
        func set(_ option: CURLoption, _ callback: courier_curl_data_callback) {
            check(courier_easy_setopt_data_callback(easy, option, callback), option)
        }
        func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) {
            check(courier_easy_setopt_pointer(easy, option, pointer), option)
        }

        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer?.initialize(to: 0)
        set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        set(CURLOPT_URL, hop.url.absoluteString)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Signals are unsafe with many threads; the time-outs are the loop's own.
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_FOLLOWLOCATION, 0)
        set(CURLOPT_ACCEPT_ENCODING, "")
        // HTTP/2 over TLS when the server offers it by ALPN, HTTP/1.1 otherwise (and for
        // plain http). A burst of requests to a host waits for the first connection's
        // negotiation, so that with h2 they share it instead of each opening one.
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        set(CURLOPT_PIPEWAIT, 1)
        if needsFreshConnection { set(CURLOPT_FRESH_CONNECT, 1) }
        set(CURLOPT_CONNECTTIMEOUT_MS, CurlRequestPlan.milliseconds(Double(plan.idleTimeout) / 1e9))
        if let key = plan.pinnedPublicKey { set(CURLOPT_PINNEDPUBLICKEY, key) }
        if let authorities = plan.certificateAuthorities { set(CURLOPT_CAINFO, authorities) }

        set(CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        set(CURLOPT_HEADERDATA, pointer: me)
        set(CURLOPT_WRITEFUNCTION, curlWriteCallback)
        set(CURLOPT_WRITEDATA, pointer: me)
        check(courier_easy_setopt_seek_callback(easy, curlSeekCallback), CURLOPT_SEEKFUNCTION)
        set(CURLOPT_SEEKDATA, pointer: me)
        check(courier_easy_setopt_opensocket_callback(easy, curlOpenSocketCallback), CURLOPT_OPENSOCKETFUNCTION)
        set(CURLOPT_OPENSOCKETDATA, pointer: me)
        // A connection outlives this transfer: its socket's close goes to the loop's poller.
        if let poller {
            check(courier_easy_setopt_closesocket_callback(easy, curlCloseSocketCallback), CURLOPT_CLOSESOCKETFUNCTION)
            set(CURLOPT_CLOSESOCKETDATA, pointer: Unmanaged.passUnretained(poller).toOpaque())
        }
        check(courier_easy_setopt_prereq_callback(easy, curlPrereqCallback), CURLOPT_PREREQFUNCTION)
        set(CURLOPT_PREREQDATA, pointer: me)

        let method = hop.method.uppercased()
        let sendsBody: Bool
        switch (method, hop.body) {
        case ("GET", .none):
            set(CURLOPT_HTTPGET, 1)
            sendsBody = false
        case ("HEAD", _):
            set(CURLOPT_NOBODY, 1)
            sendsBody = false
        case ("POST", .none), ("PUT", .none), ("PATCH", .none):
            // A bodyless POST still says `Content-Length: 0`, which servers expect.
            sendsBody = true
        case (_, .none):
            set(CURLOPT_CUSTOMREQUEST, hop.method)
            sendsBody = false
        default:
            sendsBody = true
        }
        if sendsBody {
            upload = try CurlUploadReader(hop.body)
            set(CURLOPT_UPLOAD, 1)
            set(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferSize)
            set(CURLOPT_CUSTOMREQUEST, hop.method)
            set(CURLOPT_READFUNCTION, curlReadCallback)
            set(CURLOPT_READDATA, pointer: me)
            check(
                courier_easy_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(hop.body.size ?? 0)),
                CURLOPT_INFILESIZE_LARGE)
        }

        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in hop.headers {
            // "Name;" sends an empty header; "Name: value" any other.
            list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // libcurl would wait for a 100 Continue before a large body: a round trip for nothing.
        if !hop.headers.contains(where: { CurlASCII.equal($0.name, "Expect") }) {
            list = curl_slist_append(list, "Expect:")
        }
        headerList = list
        check(courier_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), CURLOPT_HTTPHEADER)

        if let refused {
            throw CurlTransportError.optionRefused(
                option: CurlOptionNames.name(of: refused.option), reason: CurlOptionNames.reason(refused.code))
        }
    }
}

#endif
