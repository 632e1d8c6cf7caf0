import Foundation

/// Moya 15's name for one part of a `multipart/form-data` body; the same type as
/// ``MultipartFormBodyPart``, so code written for Moya compiles unchanged:
///
/// ```swift
/// let avatar = MultipartFormData(
///     provider: .data(jpegData), name: "avatar", fileName: "a.jpg", mimeType: "image/jpeg")
/// let task = RequestTask.uploadMultipart([avatar])
/// ```
public typealias MultipartFormData = MultipartFormBodyPart

/// One part of a `multipart/form-data` body: a form field or a file.
///
/// ```swift
/// let parts = [
///     MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "name"),
///     MultipartFormBodyPart(
///         provider: .file(photoURL), name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg"),
///     MultipartFormBodyPart(
///         provider: .stream(InputStream(url: logURL)!, length: logSize), name: "log", fileName: "app.log"),
/// ]
/// let task = RequestTask.uploadMultipart(parts)
/// ```
///
/// Moya 15 calls this type ``MultipartFormData``; both names work.
///
/// Names and file names may hold any characters: quotes and backslashes are escaped, line
/// breaks and other control characters are percent-encoded, and UTF-8 is sent as it is
/// (RFC 7578 §4.2). A body of 10 MiB or more is written to a temporary file and uploaded
/// from disk, never assembled in memory.
///
/// Two parts are equal when they have the same name, file name and MIME type and the same
/// bytes in memory, the same file URL, or the very same stream.
public struct MultipartFormBodyPart: Sendable, Hashable {
    /// Where a part's bytes come from (Moya's `FormDataProvider`).
    public enum FormDataProvider: Sendable, Hashable {
        /// Bytes in memory.
        case data(Data)
        /// A file on disk, read in blocks while the body is written (never loaded whole).
        case file(URL)
        /// A stream that can be read once. Create it with ``stream(_:_:)`` (Moya's spelling)
        /// or ``stream(_:length:)``.
        case inputStream(OneShotInputStream, length: UInt64)

        /// A stream of exactly `length` bytes, spelled as in Moya 15:
        /// `.stream(InputStream(data: data), UInt64(data.count))`.
        ///
        /// A stream can be read only once, so a request with a stream part is never replayed:
        /// when ``RefreshableProvider`` gets a 401 for it, the 401 is returned as it is.
        /// Use ``file(_:)`` for a body that must survive a token refresh.
        public static func stream(_ stream: InputStream, _ length: UInt64) -> FormDataProvider {
            .inputStream(OneShotInputStream(stream), length: length)
        }

        /// A stream of exactly `length` bytes; the same as ``stream(_:_:)``.
        public static func stream(_ stream: InputStream, length: UInt64) -> FormDataProvider {
            .inputStream(OneShotInputStream(stream), length: length)
        }
    }

    /// Where the bytes come from.
    public let provider: FormDataProvider
    /// The form field name.
    public let name: String
    /// The file name sent in `Content-Disposition`, if any.
    public let fileName: String?
    /// The part's `Content-Type`, if any.
    public let mimeType: String?

    /// Creates a part.
    ///
    /// - Parameters:
    ///   - provider: where the bytes come from.
    ///   - name: the form field name.
    ///   - fileName: the file name the server sees; `nil` for a plain field.
    ///   - mimeType: the part's `Content-Type`, such as `"image/jpeg"`; `nil` sends none.
    public init(provider: FormDataProvider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
    }
}
