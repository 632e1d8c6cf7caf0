import Foundation

/// Why a multipart body, or an uploaded file, could not be read.
///
/// It reaches you as ``CourierError/underlying(_:_:)``.
public enum MultipartEncodingFailure: Error, Sendable, CustomStringConvertible {
    /// A file part's file (or the file of `uploadFile`) does not exist, is not a regular
    /// file, or cannot be opened.
    case unreadableFile(URL)
    /// Reading a file or stream part failed.
    case readFailed(String)
    /// A part delivered a different number of bytes than announced.
    case lengthMismatch(String, expected: UInt64, actual: UInt64)
    /// A stream part was already read (by an earlier attempt) and cannot be sent again.
    case streamAlreadyRead
    /// The `Content-Type` names a boundary that RFC 2046 does not allow.
    case invalidBoundary(String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .unreadableFile(let url):
            "cannot read the file \(url.lastPathComponent): it is missing, not a regular file, or not readable"
        case .readFailed(let label): "reading the multipart part \(label) failed"
        case .lengthMismatch(let label, let expected, let actual):
            "the multipart part \(label) announced \(expected) bytes but delivered \(actual)"
        case .streamAlreadyRead:
            "a stream part was already read by an earlier attempt and cannot be sent again"
        case .invalidBoundary(let boundary):
            "the multipart boundary \"\(boundary)\" is not 1–70 characters of the RFC 2046 set"
        }
    }
}
