import Courier
import CourierPlugins
import Foundation

/// A target whose every part a test sets.
struct PluginTestTarget: TargetType, AccessTokenAuthorizable {
    var baseURL = URL(string: "https://api.example.com/v1")!
    var path = "items"
    var method: HTTPMethod = .get
    var task: RequestTask = .requestPlain
    var headers: [String: String]? = nil
    var validationType: ValidationType = .none
    var authorizationType: AuthorizationType? = .bearer
    var sampleData = Data(#"{"ok":true}"#.utf8)
}

/// Collects what a plugin reports, safely from any task.
final class Collector<Element: Sendable>: @unchecked Sendable {
    // `lock` guards `items`.
    private let lock = NSLock()
    private var items: [Element] = []

    func append(_ element: Element) {
        lock.withLock { items.append(element) }
    }

    func append(contentsOf elements: [Element]) {
        lock.withLock { items.append(contentsOf: elements) }
    }

    var all: [Element] {
        lock.withLock { items }
    }
}

extension NetworkLoggerTestSupport {
    static func logger(
        _ lines: Collector<String>, options: NetworkLoggerPlugin.Configuration.LogOptions = .verbose,
        redaction: NetworkLoggerPlugin.Redaction = .default, maximumBodyLength: Int = 4096
    ) -> NetworkLoggerPlugin {
        NetworkLoggerPlugin(
            configuration: .init(
                formatter: .init(entry: { identifier, message, _ in "\(identifier): \(message)" }),
                output: { _, items in lines.append(contentsOf: items) },
                logOptions: options, redaction: redaction, maximumBodyLength: maximumBodyLength))
    }
}

enum NetworkLoggerTestSupport {}
