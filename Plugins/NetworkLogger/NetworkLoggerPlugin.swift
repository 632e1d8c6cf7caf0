import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Logs requests and responses, with secrets redacted.
///
/// The configuration has Moya's shape — a ``Configuration/Formatter``, an output closure and
/// ``Configuration/LogOptions`` — and one addition: ``Configuration/redaction``, Courier's
/// `Redaction`, the rules `CourierError` descriptions use too. By default the values of
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and every header whose name
/// suggests a credential (`X-Api-Key`, `X-Auth-Token`, `X-Session-Id`…), and of the
/// `access_token`, `refresh_token`, `id_token`, `password`, `client_secret`… fields of JSON
/// bodies, form bodies and query strings are replaced by `<redacted>`, in every line the
/// plugin writes, the cURL form and the error line included. JSON bodies are printed as the
/// server sent them (key order, numbers and layout kept) with only secret values replaced,
/// whatever their depth and type.
///
/// Bodies longer than ``Configuration/maximumBodyLength`` characters (4,096 by default) are
/// cut: the line shows their beginning and then `… (truncated, 2097152 bytes in all)`. A body
/// is redacted before it is cut, never after, so a cut shows no part of a secret and a secret
/// that starts before the cut is still hidden whole. Up to 1 MiB, bodies are redacted and
/// formatted whole (a pretty-printing formatter sees the whole document); of a larger body
/// only the part that can be shown is redacted and formatted (a secret value that starts in
/// it is still hidden whole), so a 30 MB body is not read to the end to print 4 KB of it.
///
/// ```swift
/// let logger = NetworkLoggerPlugin(
///     configuration: .init(
///         output: { _, lines in lines.forEach { print($0) } },
///         logOptions: .verbose))
/// let provider = Provider<GitHub>(plugins: [logger])
/// ```
///
/// The request is logged in `willSend`, so a provider that signs requests (such as
/// `RefreshableProvider`, whose signing plugin runs first) shows the header — redacted. The
/// response or error is logged in `didReceive`.
public struct NetworkLoggerPlugin: PluginType {
    /// What to log, how to format it and where to write it.
    public let configuration: Configuration

    /// Creates a logger; the default configuration prints the method and headers of each
    /// request and the status and headers of each response.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Logs the request as it is about to be sent.
    public func willSend(_ request: URLRequest, target: any TargetType) {
        configuration.output(target, requestEntries(for: request, target: target))
    }

    /// Logs the response, or the error when there is no response.
    public func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        configuration.output(target, resultEntries(for: result, target: target))
    }

    // MARK: Entries

    /// The lines logged for `request`.
    func requestEntries(for request: URLRequest, target: any TargetType) -> [String] {
        let options = configuration.logOptions
        let redactor = configuration.redaction
        var entries: [String] = []
        let url = request.url.map { redactor.redact(url: $0) } ?? "(no URL)"
        entries.append(entry("Request", url, target))
        if options.contains(.requestHeaders) {
            let headers = request.allHTTPHeaderFields ?? [:]
            entries.append(entry("Request Headers", redactor.describe(headers: headers), target))
        }
        if options.contains(.requestMethod) {
            entries.append(entry("HTTP Request Method", request.httpMethod ?? "GET", target))
        }
        if options.contains(.requestBody) {
            if let body = request.httpBody {
                let text = bodyText(
                    body, contentType: request.value(forHTTPHeaderField: "Content-Type"),
                    formatter: configuration.formatter.requestData)
                entries.append(entry("Request Body", text, target))
            } else if request.httpBodyStream != nil {
                entries.append(entry("Request Body", "(streamed body, not logged)", target))
            }
        }
        if options.contains(.formatRequestAscURL) {
            entries.append(entry("cURL", cURL(for: request), target))
        }
        return entries
    }

    /// The lines logged for `result`.
    func resultEntries(for result: Result<Response, CourierError>, target: any TargetType) -> [String] {
        switch result {
        case .success(let response):
            return responseEntries(for: response, isError: response.statusCode >= 400, target: target)
        case .failure(let error):
            guard let response = error.response else {
                return [entry("Error", error.description(redactedBy: configuration.redaction), target)]
            }
            return responseEntries(for: response, isError: true, target: target)
        }
    }

    private func responseEntries(for response: Response, isError: Bool, target: any TargetType) -> [String] {
        let options = configuration.logOptions
        let redactor = configuration.redaction
        let url = (response.response?.url ?? response.request?.url).map { redactor.redact(url: $0) }
        var entries = [entry("Response", "\(response.statusCode)" + (url.map { " \($0)" } ?? ""), target)]
        if options.contains(.responseHeaders), let httpResponse = response.response {
            var headers: [String: String] = [:]
            for (name, value) in httpResponse.allHeaderFields {
                headers["\(name)"] = "\(value)"
            }
            entries.append(entry("Response Headers", redactor.describe(headers: headers), target))
        }
        if options.contains(.metrics), let metrics = response.metrics {
            entries.append(entry("Metrics", metrics.summary, target))
        }
        let logsBody = isError ? options.contains(.errorResponseBody) : options.contains(.successResponseBody)
        if logsBody, !response.data.isEmpty {
            let contentType = response.response?.value(forHTTPHeaderField: "Content-Type")
            let text = bodyText(
                response.data, contentType: contentType, formatter: configuration.formatter.responseData)
            entries.append(entry("Response Body", text, target))
        }
        return entries
    }

    private func entry(_ identifier: String, _ message: String, _ target: any TargetType) -> String {
        configuration.formatter.entry(identifier, message, target)
    }

    /// Bodies up to this size are redacted and formatted whole; of a larger one, only the
    /// part that can be shown is.
    static let wholeBodyLimit = 1 << 20

    /// `body` redacted, formatted and cut to the configured length — in that order, so a cut
    /// never shows part of a secret nor stops a secret from being found.
    private func bodyText(_ body: Data, contentType: String?, formatter: Configuration.DataFormatter) -> String {
        let limit = max(0, configuration.maximumBodyLength)
        // A character takes at most 4 bytes; the rest is room for a formatter that drops some.
        let bytesShown = limit <= (Int.max - 1024) / 4 ? limit * 4 + 1024 : nil
        let redacted = configuration.redaction.redact(
            body: body, contentType: contentType, limit: body.count > Self.wholeBodyLimit ? bytesShown : nil)
        let text = formatter(redacted.data)
        let cut = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex) ?? text.endIndex
        guard cut < text.endIndex || !redacted.isComplete else { return text }
        return "\(text[..<cut])… (truncated, \(body.count) bytes in all)"
    }
}
