import Courier
import CourierPlugins
import CourierTesting
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
final class Collector<Element: Sendable>: Sendable {
    private let items = LockIsolated<[Element]>([])

    func append(_ element: Element) {
        items.withValue { $0.append(element) }
    }

    func append(contentsOf elements: [Element]) {
        items.withValue { $0.append(contentsOf: elements) }
    }

    var all: [Element] { items.value }
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
