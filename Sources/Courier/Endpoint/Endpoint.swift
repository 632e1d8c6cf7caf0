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

    /// The absolute URL string. A relative one (`"users/1"`) fails the request with
    /// ``CourierError/requestMapping(_:)``, stubbed or not.
    public var url: String { storage.url }
    /// What a stub answers with.
    public var sampleResponseClosure: SampleResponseClosure {
        switch sample {
        case .closure(let closure): closure
        case .sampleData(let target): { .networkResponse(200, target.sampleData) }
        }
    }
    /// Where the sample response comes from.
    var sample: SampleSource { storage.sample }
    /// The HTTP method.
    public var method: HTTPMethod { storage.method }
    /// What the request carries.
    public var task: RequestTask { storage.task }
    /// The headers to send, if any.
    public var httpHeaderFields: [String: String]? { storage.httpHeaderFields }
    /// `url` already parsed, when the endpoint was made from a `URL` (as the default
    /// mapping does), so ``urlRequest()`` does not parse the string a second time.
    var parsedURL: URL? { storage.parsedURL }
    /// Whether the method and header fields were found fit to send (``checkForSending()``),
    /// so that building a request from the endpoint need not check them again.
    private(set) var isChecked = false

    /// The fields, in one immutable box: an endpoint goes through every step of a request,
    /// and copying it then costs one reference count instead of one per field.
    private let storage: Storage

    private final class Storage: Sendable {
        let url: String
        let parsedURL: URL?
        let sample: SampleSource
        let method: HTTPMethod
        let task: RequestTask
        let httpHeaderFields: [String: String]?

        init(
            url: String, parsedURL: URL?, sample: SampleSource, method: HTTPMethod, task: RequestTask,
            httpHeaderFields: [String: String]?
        ) {
            self.url = url
            self.parsedURL = parsedURL
            self.sample = sample
            self.method = method
            self.task = task
            self.httpHeaderFields = httpHeaderFields
        }
    }

    /// Creates an endpoint.
    ///
    /// `url` must be absolute, also for a stubbed request (Moya accepts a relative one there):
    /// make it from the target with `URL(target: target).absoluteString`.
    public init(
        url: String,
        sampleResponseClosure: @escaping SampleResponseClosure,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?
    ) {
        self.init(
            url: url, parsedURL: nil, sample: .closure(sampleResponseClosure), method: method, task: task,
            httpHeaderFields: httpHeaderFields)
    }

    /// Creates an endpoint for `url`, keeping the parsed URL for ``urlRequest()``.
    init(
        url: URL,
        sample: SampleSource,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?
    ) {
        // A relative URL would be resolved by `absoluteString`: keep only absolute ones, which
        // parse back to the same URL.
        self.init(
            url: url.absoluteString, parsedURL: url.baseURL == nil ? url : nil, sample: sample, method: method,
            task: task, httpHeaderFields: httpHeaderFields)
    }

    private init(
        url: String,
        parsedURL: URL?,
        sample: SampleSource,
        method: HTTPMethod,
        task: RequestTask,
        httpHeaderFields: [String: String]?
    ) {
        storage = Storage(
            url: url, parsedURL: parsedURL, sample: sample, method: method, task: task,
            httpHeaderFields: httpHeaderFields)
    }

    /// A copy with `newHTTPHeaderFields` added; they win over existing fields of the same
    /// name.
    public func adding(newHTTPHeaderFields: [String: String]) -> Endpoint {
        Endpoint(
            url: url, parsedURL: parsedURL, sample: sample, method: method, task: task,
            httpHeaderFields: add(httpHeaderFields: newHTTPHeaderFields))
    }

    /// A copy with `task` instead of this endpoint's task.
    public func replacing(task: RequestTask) -> Endpoint {
        Endpoint(
            url: url, parsedURL: parsedURL, sample: sample, method: method, task: task,
            httpHeaderFields: httpHeaderFields)
    }

    /// Records that the method and header fields are fit to send.
    mutating func markChecked() {
        isChecked = true
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
