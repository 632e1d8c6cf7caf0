import Foundation

/// One part of a `multipart/form-data` body: a form field or a file.
///
/// ```swift
/// let parts = [
///     MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "name"),
///     MultipartFormBodyPart(
///         provider: .file(photoURL), name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg"),
/// ]
/// let task = RequestTask.uploadMultipart(parts)
/// ```
public struct MultipartFormBodyPart: Sendable {
    /// Where a part's bytes come from.
    public enum Provider: Sendable {
        /// Bytes in memory.
        case data(Data)
        /// A file on disk, read while the body is written (never loaded whole).
        case file(URL)
        /// A stream read once; see ``stream(_:length:)``.
        case inputStream(OneShotInputStream, length: UInt64)

        /// A stream of `length` bytes. A stream can be read only once, so a request with a
        /// stream part is not replayed after a 401 (the 401 is returned as it is).
        public static func stream(_ stream: InputStream, length: UInt64) -> Provider {
            .inputStream(OneShotInputStream(stream), length: length)
        }
    }

    /// Where the bytes come from.
    public let provider: Provider
    /// The form field name.
    public let name: String
    /// The file name sent in `Content-Disposition`, if any.
    public let fileName: String?
    /// The part's `Content-Type`, if any.
    public let mimeType: String?

    /// Creates a part.
    public init(provider: Provider, name: String, fileName: String? = nil, mimeType: String? = nil) {
        self.provider = provider
        self.name = name
        self.fileName = fileName
        self.mimeType = mimeType
    }
}

/// An `InputStream` that can be taken out exactly once, by whoever writes the request body.
///
/// `InputStream` is not `Sendable`; this box hands it over across concurrency domains under a
/// lock, and a second ``take()`` returns `nil`, which is how Courier knows not to replay it.
public final class OneShotInputStream: @unchecked Sendable {
    // `lock` guards `stream`, the only mutable field.
    private let lock = NSLock()
    private var stream: InputStream?

    /// Wraps `stream`.
    public init(_ stream: InputStream) {
        self.stream = stream
    }

    /// The stream, the first time; `nil` afterwards.
    public func take() -> InputStream? {
        lock.lock()
        defer { lock.unlock() }
        let taken = stream
        stream = nil
        return taken
    }

    /// Whether the stream has not been taken yet.
    public var isAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stream != nil
    }
}
