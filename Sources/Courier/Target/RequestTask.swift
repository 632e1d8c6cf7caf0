import Foundation

/// What a request carries, or where a download goes.
///
/// The cases and their labels are Moya's `Task` (renamed so that it does not shadow Swift
/// Concurrency's `Task`). Everything a case holds is `Sendable`.
public enum RequestTask: Sendable {
    /// No body and no parameters.
    case requestPlain

    /// `data` as the body.
    case requestData(Data)

    /// A value encoded as JSON with a default `JSONEncoder`, as the body.
    case requestJSONEncodable(any Encodable & Sendable)

    /// A value encoded as JSON with `encoder`, as the body.
    case requestCustomJSONEncodable(any Encodable & Sendable, encoder: JSONEncoder)

    /// Parameters encoded with `encoding` (``URLEncoding`` or ``JSONEncoding``).
    case requestParameters(parameters: [String: any Sendable], encoding: any ParameterEncoding)

    /// `bodyData` as the body and `urlParameters` in the query string.
    case requestCompositeData(bodyData: Data, urlParameters: [String: any Sendable])

    /// `bodyParameters` encoded into the body with `bodyEncoding`, and `urlParameters` in the
    /// query string.
    case requestCompositeParameters(
        bodyParameters: [String: any Sendable],
        bodyEncoding: any ParameterEncoding,
        urlParameters: [String: any Sendable]
    )

    /// The file at the URL, streamed from disk as the body (`application/octet-stream`
    /// unless the target's headers name a `Content-Type`).
    case uploadFile(URL)

    /// A `multipart/form-data` body made of the parts.
    case uploadMultipart([MultipartFormBodyPart])

    /// A `multipart/form-data` body made of the parts, and `urlParameters` in the query
    /// string.
    case uploadCompositeMultipart([MultipartFormBodyPart], urlParameters: [String: any Sendable])

    /// A download written to the file that the destination closure names.
    case downloadDestination(DownloadDestination)

    /// A download with parameters encoded with `encoding`, written to the file that the
    /// destination closure names.
    case downloadParameters(
        parameters: [String: any Sendable],
        encoding: any ParameterEncoding,
        destination: DownloadDestination
    )
}

extension RequestTask {
    /// The destination of a download task, `nil` for every other task.
    var downloadDestination: DownloadDestination? {
        switch self {
        case .downloadDestination(let destination), .downloadParameters(_, _, let destination):
            destination
        default: nil
        }
    }
}
