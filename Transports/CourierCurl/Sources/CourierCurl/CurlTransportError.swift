// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

/// A request that ``CurlTransport`` refuses to send as it is. Nothing was sent.
///
/// Header values are never part of the description: they may carry a token.
public enum CurlTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP method is not a valid method token (RFC 9110 §9.1).
    case invalidMethod(String)
    /// A header name is not a valid field name (RFC 9110 §5.1).
    case invalidHeaderName(String)
    /// The value of the named header contains a line break or a NUL byte, which would let it
    /// forge other headers.
    case invalidHeaderValue(name: String)
    /// The URL is not an `http` or `https` URL.
    case unsupportedURL(scheme: String?)
    /// The request's body is an `httpBodyStream`; use `TransportRequest.Body.file(_:)` (or
    /// `.data(_:)`) instead, which can be sent again on a redirect.
    case bodyStreamNotSupported
    /// The file to upload does not exist, is not a regular file, or cannot be read.
    case unreadableUploadFile(path: String)
    /// libcurl refused an option the transport sets on every request, named by its
    /// `CURLOPT_` name, with libcurl's reason: usually a libcurl older than 7.85, or one
    /// built without HTTP/2 or TLS.
    case optionRefused(option: String, reason: String)

    /// What is wrong, naming the part of the request (never a header's value).
    public var description: String {
        switch self {
        case .invalidMethod(let method):
            "The HTTP method \(String(reflecting: String(method.prefix(64)))) is not a valid method token."
        case .invalidHeaderName(let name):
            "The header name \(String(reflecting: String(name.prefix(64)))) is not a valid field name."
        case .invalidHeaderValue(let name):
            "The value of header \(String(reflecting: String(name.prefix(64)))) contains a line break or a NUL byte."
        case .unsupportedURL(let scheme):
            "CurlTransport sends http and https URLs only, not \(scheme.map { "'\($0)'" } ?? "a URL without a scheme")."
        case .bodyStreamNotSupported:
            "CurlTransport does not send an httpBodyStream; upload a file or data instead."
        case .unreadableUploadFile(let path):
            "The file to upload at \(path) does not exist, is not a regular file, or cannot be read."
        case .optionRefused(let option, let reason):
            "libcurl \(CurlVersion.current) refused \(option), which CurlTransport sets on every request: \(reason)."
        }
    }
}

#endif
