import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Response: CustomReflectable {
    /// What `dump(response)` and debuggers show: the status, the body's size, and the
    /// request and response in one redacted line each, so no `Authorization`, `Cookie` or
    /// token in a URL is printed. The body itself (which may hold a token) is not shown.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "statusCode": statusCode,
                "data": "\(data.count) bytes",
                "request": request.map { RequestSummary.describe($0) } as Any,
                "response": response.map { RequestSummary.describe($0) } as Any,
                "fileURL": fileURL as Any,
            ],
            displayStyle: .struct)
    }
}
