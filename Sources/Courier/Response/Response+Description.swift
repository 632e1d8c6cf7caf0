extension Response: CustomStringConvertible {
    /// The status code and the body's size, as Moya's `Response` describes itself:
    /// `Status Code: 200, Data Length: 42`. Never the body, the request or its headers, which
    /// may hold a token.
    public var description: String {
        "Status Code: \(statusCode), Data Length: \(data.count)"
    }
}
