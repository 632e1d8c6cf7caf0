import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The body of a real request, ready for the transport: inline data, a file to stream, or a
/// multipart body written to a temporary file that is removed after the attempt.
struct PreparedBody {
    let request: URLRequest
    let transportBody: TransportRequest.Body
    private let temporaryFile: URL?

    init(for task: RequestTask, request: URLRequest) throws(CourierError) {
        var request = request
        switch task {
        case .uploadFile(let url):
            self.init(request: request, body: .file(url), temporaryFile: nil)
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _):
            let contentType = request.value(forHTTPHeaderField: "Content-Type")
            let boundary =
                MultipartFormData.boundary(fromContentType: contentType)
                ?? MultipartFormData.randomBoundary()
            if MultipartFormData.boundary(fromContentType: contentType) == nil {
                request.setValue(
                    MultipartFormData.contentType(boundary: boundary), forHTTPHeaderField: "Content-Type")
            }
            let length = MultipartFormData.contentLength(of: parts, boundary: boundary)
            do {
                if let length, length < MultipartFormData.encodingMemoryThreshold {
                    request.httpBody = try MultipartFormData.encode(parts, boundary: boundary)
                    self.init(request: request, body: .inline, temporaryFile: nil)
                } else {
                    let file = try MultipartFormData.writeToTemporaryFile(parts, boundary: boundary)
                    self.init(request: request, body: .file(file), temporaryFile: file)
                }
            } catch {
                throw .underlying(error, nil)
            }
        default:
            self.init(request: request, body: .inline, temporaryFile: nil)
        }
    }

    private init(request: URLRequest, body: TransportRequest.Body, temporaryFile: URL?) {
        self.request = request
        self.transportBody = body
        self.temporaryFile = temporaryFile
    }

    /// Removes the temporary multipart file, if one was written.
    func cleanUp() {
        if let temporaryFile {
            try? FileManager.default.removeItem(at: temporaryFile)
        }
    }
}
