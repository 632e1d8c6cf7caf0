// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Foundation

extension CurlTransport {
    /// The options of a ``CurlTransport``; the defaults match `URLSessionTransport`'s.
    ///
    /// ```swift
    /// var configuration = CurlTransport.Configuration()
    /// configuration.timeoutIntervalForRequest = 10
    /// configuration.pinnedPublicKey = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="
    /// let provider = Provider<API>(transport: CurlTransport(configuration: configuration))
    /// ```
    public struct Configuration: Sendable {
        /// How long a request may wait for its next bytes (to connect, for the headers, or
        /// between two blocks of the body) before it fails with `URLError(.timedOut)`.
        ///
        /// The shorter of this and the request's own `timeoutInterval` applies, so a
        /// `URLRequest` that asks for less gets less. Default: 60 s, as `URLSession`.
        public var timeoutIntervalForRequest: TimeInterval = 60

        /// How long a whole request may take, redirects included, before it fails with
        /// `URLError(.timedOut)`. Default: 7 days, as `URLSession`.
        public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600

        /// The largest body kept in memory (downloads written to a file are not bounded).
        ///
        /// A larger body fails with `URLError(.dataLengthExceedsMaximum)`, as soon as its
        /// `Content-Length` says so or as soon as it grows past the bound. Default:
        /// ``CurlTransport/defaultMaximumResponseBodySize``.
        public var maximumResponseBodySize: Int = CurlTransport.defaultMaximumResponseBodySize

        /// How many redirects a request follows before it fails with
        /// `URLError(.httpTooManyRedirects)`. Default: 16, as `URLSession`.
        public var maximumRedirects: Int = 16

        /// The public key the server's certificate must carry, in libcurl's
        /// `CURLOPT_PINNEDPUBLICKEY` form: `"sha256//<base64>"` (several joined with `;`) or
        /// the path of a PEM or DER file. `nil` (the default) pins nothing.
        ///
        /// The certificate is still verified against the system's trust store; the pin is an
        /// extra check. A server whose key does not match fails with
        /// `URLError(.serverCertificateUntrusted)` before any request byte is sent.
        public var pinnedPublicKey: String?

        /// A PEM bundle of the certificate authorities to trust instead of the system's
        /// (a private CA, or a test). `nil` (the default) uses the system's trust store.
        public var certificateAuthorities: URL?

        /// How many idle connections the transport keeps open for reuse, across all hosts.
        /// Default: 64, so that connections survive quiet spells between bursts.
        public var maximumIdleConnections: Int = 64

        /// The most connections open to one host (scheme, name and port) at once; further
        /// requests to it wait for one of them, in the order they were sent. Default: 64, so
        /// 32 requests in flight to one host over HTTP/1.1 each get a connection at once.
        ///
        /// Over HTTP/2 a connection carries up to 100 requests at once, so one usually
        /// suffices. A waiting request's ``timeoutIntervalForRequest`` runs while it waits.
        public var maximumConnectionsPerHost: Int = 64

        /// The most connections open at once across all hosts; further requests wait. Default:
        /// 256. Each connection holds a file descriptor: keep this well under the process's
        /// limit (`ulimit -n`), or a request fails with `URLError(.cannotLoadFromNetwork)`
        /// saying the process ran out of file descriptors.
        public var maximumConnections: Int = 256

        /// The `User-Agent` a request carries when it sets none itself (a request's own, or a
        /// plugin's, always wins). Default: ``CurlTransport/defaultUserAgent``; `nil` sends none.
        public var userAgent: String? = CurlTransport.defaultUserAgent

        /// The `Accept-Language` a request carries when it sets none itself. Default:
        /// ``CurlTransport/defaultAcceptLanguage``; `nil` sends none.
        public var acceptLanguage: String? = CurlTransport.defaultAcceptLanguage

        /// The options above with their defaults.
        public init() {}
    }

    /// The default in-memory response bound: 32 MiB, as `URLSessionTransport`'s.
    public static let defaultMaximumResponseBodySize = 32 * 1024 * 1024
}

#endif
