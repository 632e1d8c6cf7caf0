// Used by the retry policy and by RefreshableProvider's replay alike, so it lives with the
// task rather than with either of them.
extension RequestTask {
    /// Whether the request can be sent again: everything but a multipart body with a
    /// stream part that was already read.
    var isReplayable: Bool {
        switch self {
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _):
            return parts.allSatisfy { part in
                if case .inputStream(let stream, _) = part.provider { return stream.isAvailable }
                return true
            }
        default:
            return true
        }
    }
}
