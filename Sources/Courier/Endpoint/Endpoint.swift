import Foundation

/// A target resolved into the pieces of a request: URL, method, task and headers, plus what
/// a stub answers with.
///
/// A provider's `endpointClosure` makes one per request. Customise it to add headers for
/// every target, or to change sample responses in tests:
///
/// ```swift
/// let provider = Provider<MyAPI>(endpointClosure: { target in
///     Provider.defaultEndpointMapping(for: target)
///         .adding(newHTTPHeaderFields: ["X-App-Version": "2.1"])
/// })
/// ```
public struct Endpoint: Sendable {
    /// Builds the sample response for a stubbed request.
    public typealias SampleResponseClosure = @Sendable () -> EndpointSampleResponse

    /// The absolute URL string.
    public let url: String
    /// What a stub answers with.
    public let sampleResponseClosure: SampleResponseClosure
    /// The HTTP method.
    public let method: HTTPMethod
    /// What the request carries.
    public let task: RequestTask
    /// The headers to send, if any.
    public let httpHeaderFields: [String: String]?
    /// `url` already parsed, when the endpoint was made from a `URL` (as the default
    /// mapping does), so ``urlRequest()`` does not parse the string a second time.
    let parsedURL: URL?
    /// Whether the method and header fields were found fit to send (``checkedForSending()``),
    /// so that building a request from the endpoint need not check them again.
    var isChecked = false

    /// Creates an endpoint.
    public init(
        url: String,
        sampleResponseClosure: @escaping SampleResponseClosure,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?
    ) {
        self.init(
            url: url, parsedURL: nil, sampleResponseClosure: sampleResponseClosure, method: method, task: task,
            httpHeaderFields: httpHeaderFields)
    }

    /// Creates an endpoint for `url`, keeping the parsed URL for ``urlRequest()``.
    init(
        url: URL,
        sampleResponseClosure: @escaping SampleResponseClosure,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?
    ) {
        // A relative URL would be resolved by `absoluteString`: keep only absolute ones, which
        // parse back to the same URL.
        self.init(
            url: url.absoluteString, parsedURL: url.baseURL == nil ? url : nil,
            sampleResponseClosure: sampleResponseClosure, method: method, task: task,
            httpHeaderFields: httpHeaderFields)
    }

    private init(
        url: String,
        parsedURL: URL?,
        sampleResponseClosure: @escaping SampleResponseClosure,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?
    ) {
        self.url = url
        self.parsedURL = parsedURL
        self.sampleResponseClosure = sampleResponseClosure
        self.method = method
        self.task = task
        self.httpHeaderFields = httpHeaderFields
    }

    /// A copy with `newHTTPHeaderFields` added; they win over existing fields of the same
    /// name.
    public func adding(newHTTPHeaderFields: [String: String]) -> Endpoint {
        Endpoint(
            url: url, parsedURL: parsedURL, sampleResponseClosure: sampleResponseClosure, method: method,
            task: task, httpHeaderFields: add(httpHeaderFields: newHTTPHeaderFields))
    }

    /// A copy with `task` instead of this endpoint's task.
    public func replacing(task: RequestTask) -> Endpoint {
        Endpoint(
            url: url, parsedURL: parsedURL, sampleResponseClosure: sampleResponseClosure, method: method,
            task: task, httpHeaderFields: httpHeaderFields)
    }

    private func add(httpHeaderFields headers: [String: String]?) -> [String: String]? {
        guard let headers, !headers.isEmpty else { return httpHeaderFields }
        var merged = httpHeaderFields ?? [:]
        for (key, value) in headers {
            // Header names are case-insensitive: replace, don't duplicate.
            if let existing = merged.keys.first(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) {
                merged.removeValue(forKey: existing)
            }
            merged[key] = value
        }
        return merged
    }
}
