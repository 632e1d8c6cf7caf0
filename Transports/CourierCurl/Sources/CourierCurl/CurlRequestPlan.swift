// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything the loop needs to send one request, checked before anything is sent: the
/// method and headers are valid, the URL is http(s), the body's source is known.
struct CurlRequestPlan: @unchecked Sendable {
    // @unchecked: every field is immutable; `URLRequest` and `Data` are values, and the
    // progress closure is @Sendable. (`URLRequest` is not Sendable on every toolchain.)

    /// Where a body comes from; it can be read again from its start for a 307 or 308.
    enum BodySource {
        case none
        case data(Data)
        case file(URL, size: Int64)

        var size: Int64? {
            switch self {
            case .none: nil
            case .data(let data): Int64(data.count)
            case .file(_, let size): size
            }
        }
    }

    let originalRequest: URLRequest
    let url: URL
    let method: String
    let headers: [(name: String, value: String)]
    let body: BodySource
    let wantsDownload: Bool
    let progress: (@Sendable (Int64, Int64?) -> Void)?
    let reportsUpload: Bool
    let isIdempotent: Bool
    /// Where a download's temporary file goes; `nil` for a request without a destination.
    let transferDirectory: URL?
    /// The idle time-out, in nanoseconds.
    let idleTimeout: UInt64
    /// The whole request's time-out, in milliseconds.
    let resourceTimeout: Int
    let maximumBodySize: Int
    let maximumRedirects: Int
    /// The request has a ``TransportRequest/redirectSigner``: a redirect to the same origin is
    /// not followed by the loop but handed back to ``CurlTransport/send(_:)``, which asks the
    /// signer for the hop's request (it may need to await a key) and sends it.
    let signsSameOriginRedirects: Bool
    let pinnedPublicKey: String?
    let certificateAuthorities: String?

    init(
        _ request: TransportRequest, configuration: CurlTransport.Configuration, isIdempotent: Bool,
        transferDirectory: URL?
    ) throws {
        let urlRequest = request.urlRequest
        guard let url = urlRequest.url, let scheme = url.scheme,
            CurlASCII.equal(scheme, "http") || CurlASCII.equal(scheme, "https")
        else { throw CurlTransportError.unsupportedURL(scheme: urlRequest.url?.scheme) }
        let method = urlRequest.httpMethod ?? "GET"
        guard Self.isToken(method) else { throw CurlTransportError.invalidMethod(method) }
        var headers: [(name: String, value: String)] = []
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            guard Self.isToken(name) else { throw CurlTransportError.invalidHeaderName(name) }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw CurlTransportError.invalidHeaderValue(name: name)
            }
            // libcurl frames the body itself; a caller's own framing could contradict it
            // (and smuggle a second request).
            guard !Self.framingHeaders.contains(where: { CurlASCII.equal(name, $0) }) else { continue }
            headers.append((name, value))
        }
        // What URLSession adds when the request says nothing; the caller's own always wins.
        for (name, value) in [
            ("User-Agent", configuration.userAgent), ("Accept-Language", configuration.acceptLanguage),
        ]
        where !(value ?? "").isEmpty
            && !headers.contains(where: { CurlASCII.equal($0.name, name) })
        {
            headers.append((name, value ?? ""))
        }
        switch request.body {
        case .inline:
            if urlRequest.httpBodyStream != nil { throw CurlTransportError.bodyStreamNotSupported }
            body = urlRequest.httpBody.map { .data($0) } ?? .none
        case .data(let data):
            body = .data(data)
        case .file(let file):
            guard let size = Self.regularFileSize(file) else {
                throw CurlTransportError.unreadableUploadFile(path: file.path)
            }
            body = .file(file, size: size)
        }
        self.originalRequest = urlRequest
        self.signsSameOriginRedirects = request.redirectSigner != nil
        self.url = url
        self.method = method
        self.headers = headers
        self.wantsDownload = request.downloadDestination != nil
        self.progress = request.progress
        self.reportsUpload = request.body.isUpload
        self.isIdempotent = isIdempotent
        self.transferDirectory = transferDirectory
        let idleSeconds = min(
            Self.positive(urlRequest.timeoutInterval) ?? .infinity,
            Self.positive(configuration.timeoutIntervalForRequest) ?? .infinity)
        self.idleTimeout = Self.nanoseconds(idleSeconds)
        self.resourceTimeout = Self.milliseconds(Self.positive(configuration.timeoutIntervalForResource) ?? .infinity)
        self.maximumBodySize = max(0, configuration.maximumResponseBodySize)
        self.maximumRedirects = max(0, configuration.maximumRedirects)
        self.pinnedPublicKey = configuration.pinnedPublicKey
        self.certificateAuthorities = configuration.certificateAuthorities?.path
    }

    /// The headers that frame the body, which the transport sets itself.
    static let framingHeaders = ["content-length", "transfer-encoding"]

    /// The longest time-out the transport honours: 30 days (libcurl counts milliseconds in
    /// a `long`; an unbounded conversion could overflow).
    static let longestTimeout: TimeInterval = 30 * 24 * 3600

    /// `seconds` if it is a positive number, else `nil` (no limit).
    private static func positive(_ seconds: TimeInterval) -> TimeInterval? {
        seconds.isNaN || seconds <= 0 ? nil : seconds
    }

    /// `seconds` in nanoseconds, clamped to 1 ms … ``longestTimeout``.
    static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        UInt64(min(max(seconds, 0.001), longestTimeout) * 1_000_000_000)
    }

    /// `seconds` in milliseconds, clamped to 1 ms … ``longestTimeout``.
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        Int(min(max(seconds, 0.001), longestTimeout) * 1000)
    }

    /// Whether `string` is an RFC 9110 token (a method or a header name).
    static func isToken(_ string: String) -> Bool {
        !string.isEmpty
            && string.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// The size of the regular file at `url`, or `nil` when it is missing or not a file.
    static func regularFileSize(_ url: URL) -> Int64? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}

#endif
