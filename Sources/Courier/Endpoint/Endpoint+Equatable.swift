import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Endpoints compare as Moya's do: by the request they make.
///
/// Two endpoints are equal when their ``urlRequest()``s have the same URL, method, headers
/// and body, and their uploads are the same: the same file for ``RequestTask/uploadFile(_:)``,
/// equal parts for the multipart tasks (the random boundary each ``urlRequest()`` draws is
/// left out of the comparison). Download destinations are closures and cannot be compared,
/// so two downloads of the same request are equal whatever their destinations (as in Moya).
/// Two endpoints whose request cannot be built are equal when their URL strings, methods and
/// headers are. The sample response closure never counts.
///
/// This is the identity ``Provider``'s `trackInflights` uses to share one network call
/// between identical requests.
extension Endpoint: Equatable, Hashable {
    /// Whether both endpoints make the same request.
    public static func == (lhs: Endpoint, rhs: Endpoint) -> Bool {
        lhs.identity == rhs.identity
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }

    /// What makes two endpoints the same request, computed once per comparison.
    var identity: EndpointIdentity {
        let upload: EndpointIdentity.Upload
        switch task {
        case .uploadFile(let file): upload = .file(file)
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _): upload = .parts(parts)
        case .downloadDestination, .downloadParameters: upload = .download
        default: upload = .none
        }
        guard var request = try? urlRequest() else {
            return EndpointIdentity(
                request: .unbuildable(url: url, method: method.rawValue, headers: httpHeaderFields ?? [:]),
                upload: upload)
        }
        if case .parts = upload {
            // Drawn at random by every urlRequest(): not part of what the request is.
            request.setValue(nil, forHTTPHeaderField: "Content-Type")
        }
        return EndpointIdentity(
            request: .built(
                url: request.url?.absoluteString ?? url, method: request.httpMethod ?? method.rawValue,
                headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody),
            upload: upload)
    }
}

/// The parts of an ``Endpoint`` that ``Endpoint/==(_:_:)`` compares.
struct EndpointIdentity: Hashable {
    /// The request an endpoint makes, or what it was made from when it cannot be built.
    enum Request: Hashable {
        case built(url: String, method: String, headers: [String: String], body: Data?)
        case unbuildable(url: String, method: String, headers: [String: String])
    }

    /// The body that is not in the `URLRequest`.
    enum Upload: Hashable {
        case none
        case file(URL)
        case parts([MultipartFormBodyPart])
        case download
    }

    let request: Request
    let upload: Upload

    /// Whether the provider may share one call between requests with this identity: not for
    /// downloads, whose destinations (closures) may differ although the endpoints are equal.
    var isShareable: Bool {
        if case .download = upload { return false }
        return true
    }
}
