import Foundation

extension Response {
    /// The body parsed with `JSONSerialization`.
    ///
    /// - Parameter failsOnEmptyData: when `false`, an empty body maps to `NSNull()` instead
    ///   of failing.
    /// - Throws: ``CourierError/jsonMapping(_:)`` when the body is not JSON.
    public func mapJSON(failsOnEmptyData: Bool = true) throws(CourierError) -> Any {
        if data.isEmpty && !failsOnEmptyData { return NSNull() }
        do {
            return try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        } catch {
            throw .jsonMapping(self)
        }
    }

    /// The body as a UTF-8 string, or the string at `keyPath` in its JSON.
    ///
    /// - Parameter keyPath: a dot-separated path into nested JSON objects, such as
    ///   `"data.user.name"`; a numeric component indexes an array (`"items.0.name"`).
    /// - Throws: ``CourierError/stringMapping(_:)`` when the body is not UTF-8 or the key
    ///   path does not lead to a string; ``CourierError/jsonMapping(_:)`` when a key path is
    ///   given and the body is not JSON.
    public func mapString(atKeyPath keyPath: String? = nil) throws(CourierError) -> String {
        if let keyPath {
            let json = try mapJSON()
            guard let string = JSONKeyPath.value(at: keyPath, in: json) as? String else {
                throw .stringMapping(self)
            }
            return string
        }
        guard let string = String(data: data, encoding: .utf8) else {
            throw .stringMapping(self)
        }
        return string
    }

    /// The body, or the value at `keyPath` in it, decoded as `D`.
    ///
    /// ```swift
    /// let user = try response.map(User.self, atKeyPath: "data.user")
    /// ```
    ///
    /// An empty body with `failsOnEmptyData: false` is decoded as Moya does: as `{}`, then
    /// as `[{}]`, then as `null`. So a type whose properties are all optional comes back
    /// with every property `nil`, an array of such a type comes back with one such element,
    /// and an optional type comes back `nil`; the same applies with a key path, which an
    /// empty body cannot contain.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - keyPath: a dot-separated path into nested JSON objects; a numeric component
    ///     indexes an array.
    ///   - decoder: the decoder to use.
    ///   - failsOnEmptyData: when `false`, an empty body decodes as described above instead
    ///     of failing.
    /// - Throws: ``CourierError/objectMapping(_:_:)`` with the decoding error, or
    ///   ``CourierError/jsonMapping(_:)`` when the body is not JSON and a key path is given.
    public func map<D: Decodable>(
        _ type: D.Type, atKeyPath keyPath: String? = nil, using decoder: JSONDecoder = JSONDecoder(),
        failsOnEmptyData: Bool = true
    ) throws(CourierError) -> D {
        if data.isEmpty && !failsOnEmptyData {
            return try decodeEmptyBody(as: type, using: decoder)
        }
        let payload: Data
        if let keyPath, !keyPath.isEmpty {
            let json = try mapJSON()
            guard let value = JSONKeyPath.value(at: keyPath, in: json) else {
                throw .objectMapping(JSONKeyPath.Failure.missingKeyPath(keyPath), rejected(decoding: D.self))
            }
            do {
                payload = try JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed)
            } catch {
                throw .objectMapping(error, rejected(decoding: D.self))
            }
        } else {
            payload = data
        }
        do {
            return try decoder.decode(D.self, from: payload)
        } catch {
            throw .objectMapping(error, rejected(decoding: D.self))
        }
    }

    /// Moya's fallbacks for an empty body: `{}`, then `[{}]`; then `null`, for optionals.
    private func decodeEmptyBody<D: Decodable>(as type: D.Type, using decoder: JSONDecoder) throws(CourierError)
        -> D
    {
        for fallback in ["{}", "[{}]"] {
            if let value = try? decoder.decode(D.self, from: Data(fallback.utf8)) {
                return value
            }
        }
        do {
            return try decoder.decode(D.self, from: Data("null".utf8))
        } catch {
            throw .objectMapping(error, self)
        }
    }
}
