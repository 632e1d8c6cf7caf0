import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The DPoP nonces servers gave, one per origin (RFC 9449 §8, §9): the authorization server
/// and each resource server issue their own, so a nonce is only ever sent back to the origin
/// that gave it.
///
/// Updated from the `DPoP-Nonce` header of every response, successes included (a server may
/// rotate its nonce on any answer), so a stale nonce costs at most one retry.
package final class DPoPNonces: Sendable {
    /// At most this many origins are remembered; the oldest is forgotten first.
    package static let maximumOrigins = 64

    /// A nonce longer than this is not kept (RFC 9449 allows any `NQCHAR` string; a
    /// megabyte of one is an attack, not a nonce).
    package static let maximumNonceLength = 1024

    private struct State {
        var nonces: [String: String] = [:]
        var order: [String] = []
    }

    /// Guards the nonces and their order.
    private let state = Locked(State())

    package init() {}

    /// The nonce `url`'s origin gave last, if any.
    package func nonce(for url: URL) -> String? {
        guard let origin = Self.origin(of: url) else { return nil }
        return state.withValue { $0.nonces[origin] }
    }

    /// The valid `DPoP-Nonce` of `response`, if it has one (not kept).
    package static func nonce(in response: HTTPURLResponse?) -> String? {
        guard let value = response?.value(forHTTPHeaderField: "DPoP-Nonce"), isValidNonce(value) else { return nil }
        return value
    }

    /// Keeps the `DPoP-Nonce` of `response` (if it has a valid one) for the origin of `url`.
    /// Returns the nonce kept, or `nil` when the response carried none.
    @discardableResult
    package func update(from response: HTTPURLResponse?, for url: URL) -> String? {
        guard let value = Self.nonce(in: response) else { return nil }
        keep(value, for: url)
        return value
    }

    /// Keeps `value`, a valid nonce, as the one `url`'s origin gave last.
    package func keep(_ value: String, for url: URL) {
        guard let origin = Self.origin(of: url) else { return }
        state.withValue { state in
            if state.nonces.updateValue(value, forKey: origin) == nil {
                state.order.append(origin)
                if state.order.count > Self.maximumOrigins {
                    state.nonces.removeValue(forKey: state.order.removeFirst())
                }
            }
        }
    }

    /// `scheme://host:port` in lower case with the scheme's default port written out, so that
    /// `https://API.example.com` and `https://api.example.com:443` are one origin.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    /// RFC 9449 §8.1: `nonce = 1*NQCHAR`, NQCHAR = %x21 / %x23-5B / %x5D-7E.
    package static func isValidNonce(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= maximumNonceLength
            && value.utf8.allSatisfy { byte in
                byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
            }
    }
}
