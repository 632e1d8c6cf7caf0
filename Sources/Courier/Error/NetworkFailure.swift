import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport failure in words: `could not connect to 127.0.0.1:8765 (URLError -1004)`.
enum NetworkFailure {
    /// The user-info key under which the provider records the failed request's method.
    static let methodKey = "CourierHTTPMethod"

    /// `error` with the request that failed attached: the failing URL (when the transport did
    /// not give one) and the method. A `URLError` stays a `URLError` with the same code, so
    /// retry decisions are unchanged; any other error is returned as it is.
    static func attaching(_ request: URLRequest, to error: any Error) -> any Error {
        guard let urlError = error as? URLError else { return error }
        var userInfo = urlError.userInfo
        if userInfo[NSURLErrorFailingURLErrorKey] == nil, let url = request.url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
        }
        if userInfo[methodKey] == nil {
            userInfo[methodKey] = request.httpMethod ?? "GET"
        }
        return URLError(urlError.code, userInfo: userInfo)
    }

    /// The request a `URLError` names, redacted: `GET https://api.example.com/users`.
    static func request(of error: URLError, redaction: Redaction) -> String? {
        ErrorText.request(
            method: error.userInfo[methodKey] as? String, url: failingURL(of: error), redaction: redaction)
    }

    /// What went wrong, naming the host and port, followed by the code for searching.
    static func describe(_ error: URLError, redaction: Redaction) -> String {
        let url = failingURL(of: error)
        let host = ErrorText.hostAndPort(of: url)
        if let reason = error.userInfo[FailureReason.userInfoKey] as? String {
            return "the request to \(host ?? "the server") failed: \(reason) (URLError \(error.code.rawValue))"
        }
        return "\(words(for: error.code, host: host)) (URLError \(error.code.rawValue))"
    }

    private static func failingURL(of error: URLError) -> URL? {
        error.userInfo[NSURLErrorFailingURLErrorKey] as? URL
    }

    private static func words(for code: URLError.Code, host: String?) -> String {
        let at = host.map { " \($0)" } ?? " the server"
        switch code {
        case .cannotConnectToHost: return "could not connect to\(at)"
        case .timedOut: return "timed out waiting for\(at)"
        case .cannotFindHost: return "could not find the host\(host.map { " \($0)" } ?? "")"
        case .dnsLookupFailed: return "the DNS lookup failed for\(at)"
        case .networkConnectionLost: return "the connection to\(at) was lost before the response was complete"
        case .notConnectedToInternet: return "not connected to the internet"
        case .secureConnectionFailed: return "could not establish a secure connection to\(at)"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            return "the TLS certificate of\(at) is not trusted"
        case .badServerResponse: return "\(host ?? "the server") sent an answer that is not valid HTTP"
        case .cannotParseResponse: return "the response from\(at) cannot be parsed"
        case .cannotDecodeContentData, .cannotDecodeRawData:
            return "the response body from\(at) cannot be decoded (corrupt compressed data)"
        case .zeroByteResource: return "\(host ?? "the server") sent an empty resource"
        case .dataLengthExceedsMaximum: return "the response from\(at) is larger than allowed"
        case .httpTooManyRedirects: return "too many redirects, starting at\(at)"
        case .redirectToNonExistentLocation:
            return "\(host ?? "the server") redirected to a location that does not exist"
        case .badURL: return "the URL is not valid"
        case .unsupportedURL: return "the URL's scheme is not supported"
        case .userAuthenticationRequired: return "\(host ?? "the server") requires authentication that was not given"
        case .userCancelledAuthentication: return "authentication with\(at) was cancelled"
        case .cancelled: return "the request was cancelled"
        case .fileDoesNotExist: return "the file to send does not exist"
        case .cannotOpenFile, .cannotCreateFile, .cannotWriteToFile, .cannotMoveFile, .cannotRemoveFile:
            return "a file of the transfer could not be written or moved"
        case .resourceUnavailable: return "the resource at\(at) is unavailable"
        case .internationalRoamingOff, .callIsActive, .dataNotAllowed:
            return "the device does not allow network access now"
        case .requestBodyStreamExhausted: return "the request body could not be sent again"
        case .backgroundSessionWasDisconnected: return "the background session was disconnected"
        default: return "the request to\(at) failed"
        }
    }
}
