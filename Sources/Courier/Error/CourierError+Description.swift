import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CourierError: CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// What happened, for logs and alerts: the request (method and URL, secrets redacted)
    /// and what went wrong in words. Never contains a token, a refresh token or a password.
    ///
    /// For example:
    /// `POST https://auth.example.com/oauth/token got status 400 (bad request), not in the accepted range 2xx. The server says: invalid_grant: The refresh token has expired.`
    public var description: String { description(redactedBy: .default) }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Same as ``description``, so `localizedDescription` says it too.
    public var errorDescription: String? { description }

    /// The description with the secrets that `redaction` names hidden. Error descriptions use
    /// ``Redaction/default``; a logger passes its own configuration, so that one list decides
    /// what every line hides.
    public func description(redactedBy redaction: Redaction) -> String {
        switch self {
        case .statusCode(let response):
            return Self.describeStatus(response, redaction: redaction)
        case .jsonMapping(let response):
            return Self.describeBody(
                response, problem: "a body that is not JSON", redaction: redaction)
        case .stringMapping(let response):
            return Self.describeBody(
                response, problem: "a body that is not UTF-8 text or has no string at the key path",
                redaction: redaction)
        case .objectMapping(let error, let response):
            return Self.describeDecoding(error, response: response, redaction: redaction)
        case .encodableMapping(let error):
            return ErrorText.sentence(
                "Could not encode the request body as JSON: " + ErrorText.describe(error, redaction: redaction))
        case .underlying(let error, let response):
            return Self.describeUnderlying(error, response: response, redaction: redaction)
        case .requestMapping(let url):
            let problem = EndpointURLProblem(url).map { ": " + $0.explanation } ?? ""
            return ErrorText.sentence(
                "Could not build a URL request from \"\(redaction.redact(urlString: url))\"\(problem)")
        case .parameterEncoding(let error):
            return ErrorText.sentence(
                "Could not encode the parameters: " + ErrorText.describe(error, redaction: redaction))
        case .authentication(let error):
            return ErrorText.sentence("Authentication failed: " + ErrorText.describe(error, redaction: redaction))
        case .cancelled:
            return "The request was cancelled."
        }
    }

    // MARK: Cases

    private static func describeStatus(_ response: Response, redaction: Redaction) -> String {
        let request = ErrorText.request(of: response, redaction: redaction) ?? "The request"
        let accepted =
            response.rejection.acceptedStatusCodes.map { ", not in the accepted range \($0)" }
            ?? ", which was not accepted"
        var text = ErrorText.sentence("\(request) got status \(status(of: response))\(accepted)")
        if let reason = ServerReason.of(response, redaction: redaction) {
            text += " " + ErrorText.sentence(reason.hasPrefix("the body is") ? reason : "The server says: \(reason)")
        }
        return text
    }

    private static func describeBody(_ response: Response, problem: String, redaction: Redaction) -> String {
        let request = ErrorText.request(of: response, redaction: redaction) ?? "The request"
        let contentType = ErrorText.contentType(of: response)
        let excerpt = ErrorText.excerpt(
            of: response.data, contentType: response.response?.value(forHTTPHeaderField: "Content-Type"),
            redaction: redaction)
        return ErrorText.sentence(
            "\(request) got status \(response.statusCode) with \(problem) (\(contentType)): \(excerpt)")
    }

    private static func describeDecoding(_ error: any Error, response: Response, redaction: Redaction) -> String {
        let request =
            ErrorText.request(of: response, redaction: redaction).map { "the response to \($0)" } ?? "the response"
        let type = response.rejection.decodedType.map { "\($0) from " } ?? ""
        let what = ErrorText.describe(error, redaction: redaction)
        let excerpt = ErrorText.excerpt(
            of: response.data, contentType: response.response?.value(forHTTPHeaderField: "Content-Type"),
            redaction: redaction)
        return ErrorText.sentence(
            "Could not decode \(type)\(request) (status \(response.statusCode), \(ErrorText.contentType(of: response))): \(what)"
        )
            + " " + ErrorText.sentence("The body is \(excerpt)")
    }

    private static func describeUnderlying(_ error: any Error, response: Response?, redaction: Redaction) -> String {
        let what = ErrorText.describe(error, redaction: redaction)
        if let response {
            let request = ErrorText.request(of: response, redaction: redaction) ?? "The request"
            return ErrorText.sentence("\(request) got status \(response.statusCode), then failed: \(what)")
        }
        if let urlError = error as? URLError, let request = NetworkFailure.request(of: urlError, redaction: redaction) {
            return ErrorText.sentence("\(request) failed: \(what)")
        }
        return ErrorText.sentence("The request failed: \(what)")
    }

    /// `404 (not found)`.
    private static func status(of response: Response) -> String {
        let phrase = HTTPURLResponse.localizedString(forStatusCode: response.statusCode)
        // Foundation answers a class name ("client error") for a code it has no phrase for.
        let classNames: Set<String> = [
            "informational", "success", "redirected", "client error", "server error", "unknown",
        ]
        guard !phrase.isEmpty, !classNames.contains(phrase.lowercased()) else {
            return "\(response.statusCode)"
        }
        return "\(response.statusCode) (\(phrase.lowercased()))"
    }
}
