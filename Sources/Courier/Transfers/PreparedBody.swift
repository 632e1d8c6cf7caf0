import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The body of a real request, ready for the transport: the request's own body, bytes to
/// upload from memory, a file to stream from disk, or a multipart body written to a
/// temporary file that ``cleanUp()`` removes after the attempt.
///
/// Built once per attempt, so a request replayed after a 401 writes its multipart body
/// again (a stream part cannot be read twice, which is why such a request is not replayed).
struct PreparedBody {
    let request: URLRequest
    let transportBody: TransportRequest.Body
    /// The multipart body written to disk for this attempt, if any.
    let temporaryFile: URL?

    /// Prepares the body of `task` for `request`.
    ///
    /// Multipart bodies are written off the cooperative threads: in memory below
    /// ``MultipartFormat/memoryThreshold`` (10 MiB), else to a file in
    /// ``TransferDirectory/current``.
    ///
    /// - Throws: ``CourierError/cancelled`` when the task is cancelled meanwhile (no file is
    ///   left), ``CourierError/underlying(_:_:)`` with a ``MultipartEncodingFailure`` when a
    ///   file or stream cannot be read, or with a ``TransferDirectory/FileCreationFailure``
    ///   when the temporary file for a large body cannot be created.
    /// The body of a task that carries nothing to stream or write (every task but uploads):
    /// the request as it is. `nil` for an upload, which ``prepare(for:request:)`` prepares.
    static func inline(for task: RequestTask, request: URLRequest) -> PreparedBody? {
        switch task {
        case .uploadFile, .uploadMultipart, .uploadCompositeMultipart: nil
        default: PreparedBody(request: request, transportBody: .inline, temporaryFile: nil)
        }
    }

    static func prepare(for task: RequestTask, request: URLRequest) async throws(CourierError) -> PreparedBody {
        switch task {
        case .uploadFile(let url):
            guard MultipartFormat.regularFileSize(url) != nil,
                FileManager.default.isReadableFile(atPath: url.path)
            else {
                throw .underlying(MultipartEncodingFailure.unreadableFile(url), nil)
            }
            var request = request
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                // Raw bytes; without it, libcurl would call a POST body a form.
                request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            }
            return PreparedBody(request: request, transportBody: .file(url), temporaryFile: nil)
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _):
            return try await multipart(parts, request: request)
        default:
            return PreparedBody(request: request, transportBody: .inline, temporaryFile: nil)
        }
    }

    private static func multipart(_ parts: [MultipartFormBodyPart], request: URLRequest) async throws(CourierError)
        -> PreparedBody
    {
        var request = request
        let contentType = request.value(forHTTPHeaderField: "Content-Type")
        let boundary: String
        if let given = MultipartFormat.boundary(fromContentType: contentType) {
            boundary = given
        } else {
            boundary = MultipartFormat.randomBoundary()
            request.setValue(MultipartFormat.contentType(boundary: boundary), forHTTPHeaderField: "Content-Type")
        }
        let length = MultipartFormat.contentLength(of: parts, boundary: boundary)
        let directory = TransferDirectory.current
        do {
            if let length, length < MultipartFormat.memoryThreshold {
                let data = try await BlockingIO.run { isCancelled in
                    try MultipartFormat.encode(parts, boundary: boundary, isCancelled: isCancelled)
                }
                return PreparedBody(request: request, transportBody: .data(data), temporaryFile: nil)
            }
            let file = try await BlockingIO.run { isCancelled in
                try MultipartFormat.writeToTemporaryFile(
                    parts, boundary: boundary, in: directory, isCancelled: isCancelled)
            }
            let body = PreparedBody(request: request, transportBody: .file(file), temporaryFile: file)
            if Task.isCancelled {
                body.cleanUp()
                throw CancellationError()
            }
            return body
        } catch {
            throw CourierError(error)
        }
    }

    /// Removes the temporary multipart file, if one was written.
    func cleanUp() {
        if let temporaryFile {
            try? FileManager.default.removeItem(at: temporaryFile)
        }
    }
}
