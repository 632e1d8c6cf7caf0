import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the server answered: status code, body, and the request as it was sent.
public struct Response: Sendable, Equatable, CustomDebugStringConvertible {
    /// The HTTP status code.
    public var statusCode: Int { storage.statusCode }
    /// The body. Empty for a download, whose file is at its destination (``fileURL``).
    public var data: Data { storage.data }
    /// The request as it was sent, after every plugin's `prepare`.
    public var request: URLRequest? { storage.request }
    /// The HTTP response, with its headers.
    public var response: HTTPURLResponse? { storage.response }
    /// Where a download's file was moved to; `nil` for other requests.
    public var fileURL: URL? { storage.fileURL }
    /// Why this response was rejected, for error descriptions; not part of equality.
    var rejection = Rejection()

    /// The fields, in one immutable box: a response passes through every plugin's
    /// `didReceive` and `process` and up the pipeline, and copying it then costs one
    /// reference count instead of one per field.
    private let storage: Storage

    private final class Storage: Sendable {
        let statusCode: Int
        let data: Data
        let request: URLRequest?
        let response: HTTPURLResponse?
        let fileURL: URL?

        init(statusCode: Int, data: Data, request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?) {
            self.statusCode = statusCode
            self.data = data
            self.request = request
            self.response = response
            self.fileURL = fileURL
        }
    }

    /// Creates a response.
    public init(
        statusCode: Int, data: Data, request: URLRequest? = nil,
        response: HTTPURLResponse? = nil, fileURL: URL? = nil
    ) {
        storage = Storage(statusCode: statusCode, data: data, request: request, response: response, fileURL: fileURL)
    }

    /// Status code and body size; never the body itself, which may hold a token.
    public var debugDescription: String {
        "Status Code: \(statusCode), Data Length: \(data.count)"
    }

    /// Two responses are equal when their status code, body and HTTP response are.
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.data == rhs.data
            && lhs.response == rhs.response && lhs.fileURL == rhs.fileURL
    }
}
