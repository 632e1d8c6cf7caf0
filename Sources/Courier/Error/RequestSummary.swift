import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One-line, redacted summaries of requests and responses, for the mirrors of types that
/// carry them: `dump(response)` must not print an `Authorization` value.
enum RequestSummary {
    /// `POST https://api.example.com/login ["Authorization": "<redacted>"], 42-byte body`.
    static func describe(_ request: URLRequest, redaction: Redaction = .default) -> String {
        var text = "\(request.httpMethod ?? "GET") " + (request.url.map { redaction.redact(url: $0) } ?? "(no URL)")
        if let headers = request.allHTTPHeaderFields, !headers.isEmpty {
            text += " " + redaction.describe(headers: headers)
        }
        if let body = request.httpBody {
            text += ", \(body.count)-byte body"
        } else if request.httpBodyStream != nil {
            text += ", streamed body"
        }
        return text
    }

    /// `200 https://api.example.com/login ["Set-Cookie": "<redacted>"]`.
    static func describe(_ response: HTTPURLResponse, redaction: Redaction = .default) -> String {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            headers["\(name)"] = "\(value)"
        }
        let url = response.url.map { " " + redaction.redact(url: $0) } ?? ""
        return "\(response.statusCode)\(url) " + redaction.describe(headers: headers)
    }
}
