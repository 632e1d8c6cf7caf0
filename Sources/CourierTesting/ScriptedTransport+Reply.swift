import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ScriptedTransport {
    /// What a ``ScriptedTransport`` answers one request with.
    ///
    /// ```swift
    /// transport.enqueue(.status(401), .json(#"{"id":1}"#), for: .get("/me"))
    /// transport.enqueue(.failure(URLError(.timedOut)), for: .post("/upload"))
    /// transport.enqueue(.delayed(seconds: 0.2, .status(204)), for: .delete("/me"))
    /// ```
    public indirect enum Reply: Sendable {
        /// An HTTP response with this status, body and headers.
        case response(statusCode: Int, data: Data, headers: [String: String])
        /// The transfer fails with this error (a `URLError`, say), as a network failure would.
        case failure(any Error)
        /// `reply`, after waiting `seconds` (cancellable).
        case delayed(seconds: TimeInterval, Reply)

        /// A response with `statusCode`, an empty body and `headers`.
        public static func status(_ statusCode: Int, headers: [String: String] = [:]) -> Reply {
            .response(statusCode: statusCode, data: Data(), headers: headers)
        }

        /// A response with `data` as its body.
        public static func data(_ data: Data, statusCode: Int = 200, headers: [String: String] = [:]) -> Reply {
            .response(statusCode: statusCode, data: data, headers: headers)
        }

        /// A JSON response: `json` as the body, `Content-Type: application/json`.
        public static func json(_ json: String, statusCode: Int = 200, headers: [String: String] = [:]) -> Reply {
            .response(
                statusCode: statusCode, data: Data(json.utf8),
                headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine })
        }

        /// A JSON response with `value` encoded by `encoder` as the body.
        public static func json<Value: Encodable>(
            encoding value: Value, statusCode: Int = 200, encoder: JSONEncoder = JSONEncoder(),
            headers: [String: String] = [:]
        ) throws -> Reply {
            .response(
                statusCode: statusCode, data: try encoder.encode(value),
                headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine })
        }

        /// A plain-text response.
        public static func text(_ text: String, statusCode: Int = 200, headers: [String: String] = [:]) -> Reply {
            .response(
                statusCode: statusCode, data: Data(text.utf8),
                headers: headers.merging(["Content-Type": "text/plain; charset=utf-8"]) { mine, _ in mine })
        }
    }
}
