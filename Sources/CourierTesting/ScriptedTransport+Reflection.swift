import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ScriptedTransport: CustomReflectable {
    /// What `dump(transport)` shows: each request it received in one redacted line and the
    /// replies still scripted — never an `Authorization` or `Cookie` value a test sent.
    public var customMirror: Mirror {
        let redaction = Redaction.default
        let lines = requests.map { request in
            "\(request.httpMethod ?? "GET") \(request.url.map { redaction.redact(url: $0) } ?? "(no URL)") "
                + redaction.describe(headers: request.allHTTPHeaderFields ?? [:])
        }
        return Mirror(
            self, children: ["requests": lines, "pendingReplyCount": pendingReplyCount], displayStyle: .class)
    }
}
