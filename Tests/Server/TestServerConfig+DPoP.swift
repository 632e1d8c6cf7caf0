import Foundation

extension TestServerConfig {
    /// The DPoP mode's settings (`Tests/Server/dpop.py`); every `nil` field is left alone.
    ///
    /// ```swift
    /// var changes = TestServerConfig()
    /// changes.dpop = .init(nonceFromTokenEndpoint: true, nonceFromAPI: true, nonceUses: 5)
    /// try await server.configure(changes)
    /// ```
    public struct DPoPSettings: Encodable, Sendable, Equatable {
        /// Whether the token endpoint asks for its nonce (400 `use_dpop_nonce`).
        public var nonceFromTokenEndpoint: Bool?
        /// Whether the API asks for its nonce (401 `WWW-Authenticate: DPoP error="use_dpop_nonce"`).
        public var nonceFromAPI: Bool?
        /// After how many accepted proofs each server's nonce changes (0: never).
        public var nonceUses: Int?
        /// How far a proof's `iat` may be from the server's clock, in seconds (default 60).
        public var iatWindow: TimeInterval?
        /// Servers whose nonce changes now: `"as"` (the token endpoint), `"rs"` (the API).
        public var rotate: [String]?
        /// Single-use nonces: every answer (a challenge, a success, a redirect) gives a nonce
        /// of its own, good for exactly one proof; a proof whose nonce was never given or was
        /// used already gets `use_dpop_nonce` again. `nonceUses` is then ignored.
        public var singleUseNonces: Bool?

        /// A set of changes.
        public init(
            nonceFromTokenEndpoint: Bool? = nil, nonceFromAPI: Bool? = nil, nonceUses: Int? = nil,
            iatWindow: TimeInterval? = nil, rotate: [String]? = nil, singleUseNonces: Bool? = nil
        ) {
            self.singleUseNonces = singleUseNonces
            self.nonceFromTokenEndpoint = nonceFromTokenEndpoint
            self.nonceFromAPI = nonceFromAPI
            self.nonceUses = nonceUses
            self.iatWindow = iatWindow
            self.rotate = rotate
        }

        private enum CodingKeys: String, CodingKey {
            case nonceFromTokenEndpoint = "nonce_as"
            case nonceFromAPI = "nonce_rs"
            case nonceUses = "nonce_uses"
            case iatWindow = "iat_window"
            case rotate
            case singleUseNonces = "single_use"
        }
    }
}
