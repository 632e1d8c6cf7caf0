import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Thin wrappers over the server's `/_admin/…` routes.
extension TestServer {
    /// `GET /_admin/counters`: what the server has seen since it started or since
    /// ``resetCounters()``.
    public func counters() async throws -> TestServerCounters {
        let data = try await admin("GET", "counters")
        do {
            return try JSONDecoder().decode(TestServerCounters.self, from: data)
        } catch {
            throw TestServerError.adminRequestFailed(
                path: "/_admin/counters",
                status: 200,
                detail: "cannot decode counters: \(error)"
            )
        }
    }

    /// `POST /_admin/config`: changes the fields of `changes` that are set; the others keep
    /// their current values.
    ///
    /// ```swift
    /// try await server.configure(.init(tokenLifetime: .seconds(1.5), rotateRefreshTokens: false))
    /// try await server.configure(.init(tokenFault: .drop, tokenFaultCount: 2))
    /// try await server.configure(.init(clearsTokenFault: true))
    /// ```
    public func configure(_ changes: TestServerConfig) async throws {
        let body = try JSONEncoder().encode(changes)
        _ = try await admin("POST", "config", body: body)
    }

    /// `POST /_admin/expire-access-tokens`: every access token issued so far is expired from
    /// now on (protected routes answer 401 for it).
    ///
    /// - Returns: how many tokens were still live (not yet expired or revoked) and are now
    ///   expired.
    @discardableResult
    public func expireAccessTokens() async throws -> Int {
        let data = try await admin("POST", "expire-access-tokens")
        struct Answer: Decodable {
            let liveExpired: Int
            enum CodingKeys: String, CodingKey { case liveExpired = "live_expired" }
        }
        return (try? JSONDecoder().decode(Answer.self, from: data))?.liveExpired ?? 0
    }

    /// `POST /_admin/revoke-refresh-tokens`: every refresh token issued so far is invalid
    /// from now on (a refresh grant with it answers 400 `invalid_grant`).
    public func revokeRefreshTokens() async throws {
        _ = try await admin("POST", "revoke-refresh-tokens")
    }

    /// `POST /_admin/reset-counters`: sets every counter to zero (the token generation and
    /// the tokens themselves are kept).
    public func resetCounters() async throws {
        _ = try await admin("POST", "reset-counters")
    }

    /// `POST /_admin/issue`: issues an access token and a refresh token directly, without a
    /// grant and without touching the grant counters, so a test can sign in.
    ///
    /// - Parameter lifetime: the access token's lifetime in seconds (fractions allowed);
    ///   `nil` for a token without `expires_in` that never expires.
    /// - Returns: the raw RFC 6749 §5.1 token response, e.g.
    ///   `{"access_token":"at-1-…","token_type":"Bearer","expires_in":60,"refresh_token":"rt-…"}`.
    public func issueToken(lifetime: TimeInterval?) async throws -> Data {
        let body = try JSONEncoder().encode(IssueRequest(lifetime: lifetime))
        return try await admin("POST", "issue", body: body)
    }

    /// Sends one admin request and returns the body of its 200 answer.
    private func admin(_ method: String, _ name: String, body: Data? = nil) async throws -> Data {
        let path = "/_admin/\(name)"
        guard !hasStopped else {
            throw TestServerError.adminRequestFailed(path: path, status: nil, detail: "the server was stopped")
        }
        var request = URLRequest(url: originURL(path))
        request.httpMethod = method
        request.timeoutInterval = 10
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await adminSession.dataStartedOffPool(for: request)
        } catch {
            throw TestServerError.adminRequestFailed(path: path, status: nil, detail: String(describing: error))
        }
        let status = (response as? HTTPURLResponse)?.statusCode
        guard status == 200 else {
            throw TestServerError.adminRequestFailed(
                path: path,
                status: status,
                detail: String(decoding: data.prefix(2_000), as: UTF8.self)
            )
        }
        return data
    }
}

/// Body of `POST /_admin/issue`; encodes `"lifetime": null` for a token that never expires.
private struct IssueRequest: Encodable {
    let lifetime: TimeInterval?

    enum CodingKeys: String, CodingKey {
        case lifetime
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let lifetime {
            try container.encode(lifetime, forKey: .lifetime)
        } else {
            try container.encodeNil(forKey: .lifetime)
        }
    }
}
