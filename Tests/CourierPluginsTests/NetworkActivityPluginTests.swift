import Courier
import CourierPlugins
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkActivityPlugin", .timeLimit(.minutes(20)))
struct NetworkActivityPluginTests {
    let changes = Collector<String>()
    var plugin: NetworkActivityPlugin {
        let changes = self.changes
        return NetworkActivityPlugin { change, target in changes.append("\(change) \(target.path)") }
    }

    @Test("began before the request is sent, ended when its result arrives")
    func success() async throws {
        let transport = ScriptedTransport()
        let changes = self.changes
        transport.respond { request in
            changes.append("sent \(request.url?.lastPathComponent ?? "")")
            return .status(200)
        }

        _ = try await Provider<PluginTestTarget>.scripted(transport, plugins: [plugin]).request(PluginTestTarget())

        #expect(changes.all == ["began items", "sent items", "ended items"])
    }

    @Test("ended follows began for failures and validation errors too")
    func failures() async throws {
        let transport = ScriptedTransport()
        transport.enqueue(.failure(URLError(.timedOut)), .status(500), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(transport, plugins: [plugin])

        await #expect(throws: CourierError.self) { try await provider.request(PluginTestTarget(path: "a")) }
        await #expect(throws: CourierError.self) {
            try await provider.request(PluginTestTarget(path: "b", validationType: .successCodes))
        }

        #expect(changes.all == ["began a", "ended a", "began b", "ended b"])
    }

    @Test("a cancelled request still ends")
    func cancelled() async throws {
        let transport = ScriptedTransport()
        // Longer than the suite's time limit: only the cancel ends it.
        transport.always(.delayed(seconds: 3_600, .status(200)), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(transport, plugins: [plugin])

        let task = Task { try await provider.request(PluginTestTarget()) }
        try await transport.waitForRequests(1)
        task.cancel()
        let result = await task.result

        #expect((try? result.get()) == nil)
        #expect(changes.all == ["began items", "ended items"])
    }

    @Test("a request that fails in prepare reports neither")
    func failsBeforeSending() async {
        struct Refuse: PluginType {
            struct Refused: Error {}
            func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest { throw Refused() }
        }
        let provider = Provider<PluginTestTarget>.scripted(ScriptedTransport(), plugins: [Refuse(), plugin])

        await #expect(throws: CourierError.self) { try await provider.request(PluginTestTarget()) }

        #expect(changes.all.isEmpty)
    }

    @Test("a request cancelled before it is sent reports neither, though didReceive sees it", arguments: 0..<10)
    func cancelledBeforeSending(round: Int) async throws {
        struct HoldUntilCancelled: PluginType {
            let entered: CallCounter
            func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
                _ = entered.increment()
                // A gate nobody opens: only the cancellation ends the wait.
                try? await Gate().wait()
                return request
            }
        }
        struct SeesResult: PluginType {
            let seen: Collector<String>
            func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
                if case .failure(let error) = result { seen.append("\(error.isCancelled)") }
            }
        }
        let entered = CallCounter()
        let seen = Collector<String>()
        let transport = ScriptedTransport()
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [HoldUntilCancelled(entered: entered), plugin, SeesResult(seen: seen)])

        let task = Task { try await provider.request(PluginTestTarget()) }
        try await entered.wait(forAtLeast: 1)
        task.cancel()
        _ = await task.result

        #expect(seen.all == ["true"])
        #expect(changes.all.isEmpty)
        #expect(transport.requestCount == 0)
    }
}
