import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can go wrong with a request, with the ``Response`` where there is one.
///
/// The cases are Moya's `MoyaError`, plus ``authentication(_:)`` for token problems and
/// ``cancelled``. Descriptions say what happened and never contain a token, a refresh token
/// or a password.
///
/// Tests compare errors with ``==(_:_:)`` (the same case with equal payloads), or ask what
/// kind of failure one is: ``statusCode``, ``isSessionExpired``, ``isCancelled``,
/// ``authenticationError``, ``urlError``.
public enum CourierError: Error {
    /// The response's data could not be read as JSON.
    case jsonMapping(Response)
    /// The response's data could not be read as a UTF-8 string (or the key path held no
    /// string).
    case stringMapping(Response)
    /// The response's data could not be decoded into the requested type.
    case objectMapping(any Error, Response)
    /// A value could not be encoded as JSON for the request body.
    case encodableMapping(any Error)
    /// The status code is not one the target's ``ValidationType`` accepts.
    case statusCode(Response)
    /// Something else failed — the network, a plugin, the file system — with the response
    /// if one arrived.
    case underlying(any Error, Response?)
    /// The endpoint could not be turned into a `URLRequest` (an invalid URL, say).
    case requestMapping(String)
    /// The target's parameters could not be encoded.
    case parameterEncoding(any Error)
    /// Signing or refreshing the access token failed.
    case authentication(AuthenticationError)
    /// The request was cancelled, through its `Task` or its ``Cancellable``.
    case cancelled

    /// The response that came with the error, if there is one.
    public var response: Response? {
        switch self {
        case .jsonMapping(let response), .stringMapping(let response),
            .statusCode(let response), .objectMapping(_, let response):
            response
        case .underlying(_, let response): response
        case .encodableMapping, .requestMapping, .parameterEncoding, .authentication,
            .cancelled:
            nil
        }
    }

    /// The error that caused this one, if there is one.
    public var underlyingError: (any Error)? {
        switch self {
        case .objectMapping(let error, _), .encodableMapping(let error),
            .underlying(let error, _), .parameterEncoding(let error):
            error
        case .authentication(let error): error
        case .jsonMapping, .stringMapping, .statusCode, .requestMapping, .cancelled: nil
        }
    }

    /// Whether this error means the request was cancelled.
    public var isCancelled: Bool {
        switch self {
        case .cancelled, .authentication(.cancelled): true
        default: false
        }
    }

    /// Wraps any error into a ``CourierError``: a ``CourierError`` is returned as it is, an
    /// ``AuthenticationError`` becomes ``authentication(_:)``, a cancellation becomes
    /// ``cancelled``, and anything else ``underlying(_:_:)``.
    public init(_ error: any Error, response: Response? = nil) {
        switch error {
        case let error as CourierError: self = error
        case let error as AuthenticationError:
            if case .cancelled = error { self = .cancelled } else { self = .authentication(error) }
        case is CancellationError: self = .cancelled
        case let error as URLError where error.code == .cancelled: self = .cancelled
        default: self = .underlying(error, response)
        }
    }
}
