import Foundation

/// An `InputStream` that can be taken out exactly once, by whoever writes the request body.
///
/// You rarely create one yourself: ``MultipartFormBodyPart/FormDataProvider/stream(_:_:)``
/// wraps your stream in it. `InputStream` is not `Sendable`; this box hands it over across
/// concurrency domains under a lock, and once it is taken (or the stream was opened
/// elsewhere) Courier knows not to replay a request that carried it.
public final class OneShotInputStream: Sendable {
    // The stream is handed out once and never touched here afterwards.
    private let stream: Locked<InputStream?>

    /// Wraps `stream`, which must not have been opened yet.
    public init(_ stream: InputStream) {
        self.stream = Locked(stream)
    }

    /// The stream, the first time; `nil` afterwards.
    func take() -> InputStream? {
        stream.withValue {
            let taken = $0
            $0 = nil
            return taken
        }
    }

    /// Whether the stream can still deliver its bytes from the start: it has not been taken,
    /// and it has not been opened (a stream wrapped again after a first attempt read it is
    /// not available either).
    var isAvailable: Bool {
        stream.withValue {
            guard let stream = $0 else { return false }
            return stream.streamStatus == .notOpen
        }
    }
}

extension OneShotInputStream: Hashable {
    /// Whether both are the same box: a stream has no value to compare, only an identity.
    public static func == (lhs: OneShotInputStream, rhs: OneShotInputStream) -> Bool {
        lhs === rhs
    }

    /// Hashes the box's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
