import Foundation

extension Provider {
    /// Sends `target` and decodes a successful (2xx) body as `D`.
    ///
    /// ```swift
    /// let user = try await provider.request(.user(name: "ada"), as: User.self)
    /// ```
    ///
    /// - Throws: ``CourierError/statusCode(_:)`` for a non-2xx answer (its body is rarely a
    ///   `D`), ``CourierError/objectMapping(_:_:)`` when decoding fails, or the request's
    ///   own error.
    public func request<D: Decodable>(
        _ target: Target, as type: D.Type = D.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws(CourierError) -> D {
        try await request(target).filterSuccessfulStatusCodes().map(type, using: decoder)
    }
}
