import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the server answered: status code, body, and the request as it was sent.
public struct Response: Sendable, Equatable, CustomDebugStringConvertible {
    /// The HTTP status code.
    public let statusCode: Int
    /// The body. Empty for a download, whose file is at its destination (``fileURL``).
    public let data: Data
    /// The request as it was sent, after every plugin's `prepare`.
    public let request: URLRequest?
    /// The HTTP response, with its headers.
    public let response: HTTPURLResponse?
    /// Where a download's file was moved to; `nil` for other requests.
    public let fileURL: URL?
    /// Why this response was rejected, for error descriptions; not part of equality.
    var rejection = Rejection()

    /// Creates a response.
    public init(
        statusCode: Int, data: Data, request: URLRequest? = nil,
        response: HTTPURLResponse? = nil, fileURL: URL? = nil
    ) {
        self.statusCode = statusCode
        self.data = data
        self.request = request
        self.response = response
        self.fileURL = fileURL
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
