import Foundation

/// Why the test server could not be started or an admin call failed.
public enum TestServerError: Error, CustomStringConvertible, Sendable {
    /// `server.py` was not found at any of the paths searched.
    case scriptNotFound(searched: [String])
    /// The python3 process could not be launched.
    case launchFailed(command: String, reason: String)
    /// The process did not print `PORT <n>` (it exited, printed something else, or took
    /// longer than 10 seconds). `standardError` is what it wrote to stderr meanwhile.
    case noPortAnnounced(reason: String, caller: String, standardError: String)
    /// The server announced its port but `GET /echo` did not answer 200 within 5 seconds.
    case notReady(port: Int, lastError: String, standardError: String)
    /// An admin route did not answer 200 (or did not answer at all when `status` is `nil`).
    case adminRequestFailed(path: String, status: Int?, detail: String)

    /// A sentence that says what happened, with the server's stderr where there is one.
    public var description: String {
        switch self {
        case .scriptNotFound(let searched):
            return "TestServer: server.py not found; searched: \(searched.joined(separator: ", "))"
        case .launchFailed(let command, let reason):
            return "TestServer: cannot launch `\(command)`: \(reason)"
        case .noPortAnnounced(let reason, let caller, let standardError):
            return "TestServer (started from \(caller)): python3 server.py did not announce its port: "
                + "\(reason). stderr so far: \(Self.quote(standardError))"
        case .notReady(let port, let lastError, let standardError):
            return "TestServer: server on port \(port) did not answer GET /echo within 5 s "
                + "(last error: \(lastError)). stderr so far: \(Self.quote(standardError))"
        case .adminRequestFailed(let path, let status, let detail):
            let answer = status.map { "HTTP \($0)" } ?? "no answer"
            return "TestServer: admin request \(path) failed (\(answer)): \(detail)"
        }
    }

    private static func quote(_ text: String) -> String {
        text.isEmpty ? "(empty)" : "\n" + text
    }
}
