import Courier
import Foundation

extension NetworkLoggerPlugin {
    /// What a ``NetworkLoggerPlugin`` logs, how it formats each line and where it writes them.
    ///
    /// ```swift
    /// let configuration = NetworkLoggerPlugin.Configuration(
    ///     formatter: .init(responseData: NetworkLoggerPlugin.Configuration.Formatter.prettyJSON),
    ///     output: { target, lines in lines.forEach { print("[\(target.path)]", $0) } },
    ///     logOptions: [.requestMethod, .successResponseBody, .errorResponseBody],
    ///     redaction: .default.adding(headers: ["X-Tenant"], keys: ["otp"]))
    /// ```
    public struct Configuration: Sendable {
        /// Writes the lines logged for one request or one response.
        public typealias OutputClosure = @Sendable (_ target: any TargetType, _ items: [String]) -> Void
        /// Turns an already redacted body into text.
        public typealias DataFormatter = @Sendable (_ data: Data) -> String
        /// Turns one entry — an identifier such as `"Request Headers"` and its message — into
        /// a line.
        public typealias EntryFormatter =
            @Sendable (_ identifier: String, _ message: String, _ target: any TargetType) -> String

        /// Formats lines and bodies.
        public let formatter: Formatter
        /// Writes the lines.
        public let output: OutputClosure
        /// What is logged.
        public let logOptions: LogOptions
        /// What is hidden. Redaction happens before any formatter sees a body.
        public let redaction: Redaction
        /// Bodies whose text is longer than this many characters are cut, with their size
        /// in bytes shown: `… (truncated, 2097152 bytes in all)`.
        ///
        /// The body is redacted first, then formatted, then cut, so a cut never shows part of
        /// a secret. A body larger than 1 MiB is redacted and formatted only as far as it can
        /// be shown (four bytes per character at most, and some room; a secret value that
        /// starts there is hidden whole), so it is not read to its end; the formatter then sees
        /// that beginning only.
        public let maximumBodyLength: Int

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - formatter: formats lines and bodies (by default
        ///     `Courier: [time] Identifier: message` and UTF-8 bodies).
        ///   - output: writes the lines (by default ``defaultOutput(target:items:)``, which
        ///     prints them).
        ///   - logOptions: what is logged (``LogOptions/default``: method and headers).
        ///   - redaction: what is hidden (`Redaction.default`, the list error descriptions use).
        ///   - maximumBodyLength: the longest body logged in full, in characters.
        public init(
            formatter: Formatter = Formatter(),
            output: @escaping OutputClosure = Configuration.defaultOutput,
            logOptions: LogOptions = .default,
            redaction: Redaction = .default,
            maximumBodyLength: Int = 4096
        ) {
            self.formatter = formatter
            self.output = output
            self.logOptions = logOptions
            self.redaction = redaction
            self.maximumBodyLength = maximumBodyLength
        }

        /// Prints each line.
        public static func defaultOutput(target: any TargetType, items: [String]) {
            for item in items {
                print(item, separator: ",", terminator: "\n")
            }
        }
    }
}

extension NetworkLoggerPlugin.Configuration {
    /// Formats each line and the request and response bodies, as Moya's formatter does.
    public struct Formatter: Sendable {
        /// Turns an entry into a line.
        public let entry: EntryFormatter
        /// Turns a request body into text.
        public let requestData: DataFormatter
        /// Turns a response body into text.
        public let responseData: DataFormatter

        /// Creates a formatter; every closure has a default.
        public init(
            entry: @escaping EntryFormatter = Formatter.defaultEntryFormatter,
            requestData: @escaping DataFormatter = Formatter.defaultDataFormatter,
            responseData: @escaping DataFormatter = Formatter.defaultDataFormatter
        ) {
            self.entry = entry
            self.requestData = requestData
            self.responseData = responseData
        }

        /// `Courier: [2024-05-01T10:00:00Z] Identifier: message`.
        public static func defaultEntryFormatter(identifier: String, message: String, target: any TargetType) -> String
        {
            "Courier: [\(Date().formatted(.iso8601))] \(identifier): \(message)"
        }

        /// The body as UTF-8 text, or its size when it is not text.
        public static func defaultDataFormatter(_ data: Data) -> String {
            String(data: data, encoding: .utf8) ?? "(\(data.count) bytes of binary data)"
        }

        /// A JSON body re-serialised, pretty-printed with sorted keys; any other body as
        /// ``defaultDataFormatter(_:)`` shows it.
        ///
        /// Re-serialising changes the text: keys are sorted and a number may be written
        /// differently (`1.0` as `1`, long decimals rounded). Use the default formatter to see
        /// the body as the server sent it.
        public static func prettyJSON(_ data: Data) -> String {
            guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
                let pretty = try? JSONSerialization.data(
                    withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed])
            else {
                return defaultDataFormatter(data)
            }
            return defaultDataFormatter(pretty)
        }
    }

    /// What a ``NetworkLoggerPlugin`` logs. The options are Moya's, plus
    /// ``responseHeaders``.
    public struct LogOptions: OptionSet, Sendable {
        /// The raw bits.
        public let rawValue: Int

        /// Creates options from raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The request's HTTP method.
        public static let requestMethod = LogOptions(rawValue: 1 << 0)
        /// The request's body (redacted).
        public static let requestBody = LogOptions(rawValue: 1 << 1)
        /// The request's headers (redacted).
        public static let requestHeaders = LogOptions(rawValue: 1 << 2)
        /// The request as a `curl` command line (redacted) that can be pasted into a shell.
        public static let formatRequestAscURL = LogOptions(rawValue: 1 << 3)
        /// The body of a successful response (status below 400).
        public static let successResponseBody = LogOptions(rawValue: 1 << 4)
        /// The body of a failed response (status 400 or above, or a failed validation).
        public static let errorResponseBody = LogOptions(rawValue: 1 << 5)
        /// The response's headers (redacted).
        public static let responseHeaders = LogOptions(rawValue: 1 << 6)
        /// What the attempt cost on the wire (`TransferMetrics.summary`, from Courier), in one line:
        /// `Metrics: total 12.4 ms (dns 0.1, connect 0.3, tls 2, first byte 9.8); sent 212 B,
        /// received 1.2 KB; h2, reused`.
        public static let metrics = LogOptions(rawValue: 1 << 7)

        /// Method and headers of requests, and headers of responses.
        public static let `default`: LogOptions = [requestMethod, requestHeaders, responseHeaders]
        /// Everything but the cURL form: methods, headers and bodies.
        public static let verbose: LogOptions = [
            requestMethod, requestHeaders, requestBody, responseHeaders, successResponseBody, errorResponseBody,
        ]
    }
}
