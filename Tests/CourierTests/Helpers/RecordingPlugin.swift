import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records every hook call, in order, across all plugins that share one log.
final class HookLog: Sendable {
    private let entries = LockIsolated<[String]>([])

    func append(_ entry: String) {
        entries.withValue { $0.append(entry) }
    }

    var all: [String] { entries.value }

    /// Waits until at least `count` entries have been appended.
    func wait(forCount count: Int) async throws {
        try await entries.wait { $0.count >= count }
    }
}

struct RecordingPlugin: PluginType {
    let name: String
    let log: HookLog
    var header: (String, String)?

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        log.append("\(name).prepare")
        var request = request
        if let header { request.setValue(header.1, forHTTPHeaderField: header.0) }
        return request
    }

    func willSend(_ request: URLRequest, target: any TargetType) {
        log.append("\(name).willSend")
    }

    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        log.append("\(name).didReceive")
    }

    func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<Response, CourierError> {
        log.append("\(name).process")
        return result
    }
}

struct ThrowingPlugin: PluginType {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "the plugin refused to sign the request" }
    }

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
        throw Refused()
    }
}
