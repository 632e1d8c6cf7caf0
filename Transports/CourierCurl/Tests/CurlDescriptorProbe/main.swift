import Foundation

// Without the CurlTransport trait (see Package.swift) there is nothing to probe.
#if CurlTransport

import Courier
import CourierCurl

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CurlDescriptorProbe <url> <requests> <descriptor limit>`: lowers this process's
/// `RLIMIT_NOFILE` soft limit to `<descriptor limit>` (`free+N`: N more than it holds now),
/// then sends `<requests>` GETs to `<url>` at once through a `Provider` on `CurlTransport` with
/// the default `RetryPolicy`, and prints one JSON object: how many succeeded, how many were
/// sent (a retry sends again), and each distinct failure's `URLError` code and description.
///
/// A child process of `CurlDescriptorTests`, so that the lowered limit never touches the
/// test process, where other suites run in parallel.
struct Probe: TargetType {
    let url: URL
    var baseURL: URL { url }
    var path: String { "" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

/// Counts what the provider sends, retries included.
final class SendCounter: PluginType, @unchecked Sendable {
    // @unchecked: `lock` guards `count`, the only mutable field.
    private let lock = NSLock()
    private var count = 0
    func willSend(_ request: URLRequest, target: any TargetType) { lock.withLock { count += 1 } }
    var sent: Int { lock.withLock { count } }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let url = URL(string: arguments[1]), let requests = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: CurlDescriptorProbe <url> <requests> <limit|free+N>\n".utf8))
    exit(2)
}
// The transport (its multi handle, poller and wake-up descriptor) exists before the count, so
// that `free+N` leaves N descriptors for connections.
let counter = SendCounter()
// libdispatch opens its event loop's descriptors (epoll, eventfd, timerfd) at the first timer,
// such as a retry's `Task.sleep`, and traps when it cannot: open them while descriptors are left.
try? await Task.sleep(nanoseconds: 1_000)
let provider = Provider<Probe>(transport: CurlTransport(), retryPolicy: RetryPolicy(baseDelay: 0), plugins: [counter])
let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
let limitArgument = arguments[3]
let limit =
    limitArgument.hasPrefix("free+") ? open + (Int(limitArgument.dropFirst(5)) ?? 0) : (Int(limitArgument) ?? 256)
var bound = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &bound)
bound.rlim_cur = rlim_t(limit)
guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &bound) == 0 else {
    FileHandle.standardError.write(Data("error: setrlimit(\(limit)) failed\n".utf8))
    exit(2)
}

let outcomes = await withTaskGroup(of: String?.self) { group in
    for _ in 0..<requests {
        group.addTask {
            do {
                let response = try await provider.request(Probe(url: url))
                return response.statusCode == 200 ? nil : "status \(response.statusCode)"
            } catch {
                guard case .underlying(let underlying, _) = error as? CourierError,
                    let urlError = underlying as? URLError
                else {
                    return "\(error)"
                }
                return "\(urlError.code.rawValue) \(urlError.localizedDescription)"
            }
        }
    }
    var failures: [String: Int] = [:]
    for await outcome in group {
        if let outcome { failures[outcome, default: 0] += 1 }
    }
    return failures
}
let succeeded = requests - outcomes.values.reduce(0, +)
let report: [String: Any] = [
    "limit": limit, "succeeded": succeeded, "sent": counter.sent,
    "failures": outcomes.map { ["error": $0.key, "count": $0.value] },
]
let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))

#else

FileHandle.standardError.write(Data("error: built without the CurlTransport trait\n".utf8))
exit(2)

#endif
