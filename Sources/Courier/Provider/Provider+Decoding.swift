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
    ///
    /// Like ``request(_:)``, it runs on the caller's actor, and decodes there: a model whose
    /// `Decodable` conformance is isolated to the main actor (an app's default) is decoded on
    /// the main actor.
    nonisolated(nonsending) public func request<D: Decodable>(
        _ target: Target, as type: D.Type = D.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws(CourierError) -> D {
        try await request(target).filterSuccessfulStatusCodes().map(type, using: decoder)
    }
}
