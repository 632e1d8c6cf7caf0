import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A request cancelled before it is sent still reaches didReceive and process", .timeLimit(.minutes(20)))
struct CancelledBeforeSendTests {
    /// Holds `prepare` until the request's task is cancelled (the suite's time limit ends a
    /// test that never cancels it).
    struct WaitForCancel: PluginType {
        let entered: CallCounter
        func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
            _ = entered.increment()
            // A gate nobody opens: only the cancellation ends the wait.
            try? await Gate().wait()
            return request
        }
    }

    /// Turns a cancellation into a 299 response, as a Moya `process` plugin may.
    struct RecoverCancel: PluginType {
        func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<Response, CourierError>
        {
            if case .failure(.cancelled) = result { return .success(Response(statusCode: 299, data: Data())) }
            return result
        }
    }

    @Test("didReceive and process get .cancelled; willSend never runs; nothing is sent")
    func notified() async throws {
        let log = HookLog()
        let entered = CallCounter()
        let transport = ScriptedTransport()
        let provider = Provider<TestAPI>.scripted(
            transport, plugins: [WaitForCancel(entered: entered), RecordingPlugin(name: "r", log: log)])

        let task = Task { () -> Result<Response, CourierError> in
            do throws(CourierError) {
                return .success(try await provider.request(.plain))
            } catch {
                return .failure(error)
            }
        }
        try await entered.wait(forAtLeast: 1)
        task.cancel()

        #expect(await task.value.failureIsCancelled)
        #expect(log.all == ["r.prepare", "r.didReceive", "r.process"])
        #expect(transport.requestCount == 0)
    }

    @Test("a process plugin may turn the cancellation into something else")
    func processed() async throws {
        let entered = CallCounter()
        let provider = Provider<TestAPI>.scripted(
            ScriptedTransport(), plugins: [WaitForCancel(entered: entered), RecoverCancel()])
        let task = Task { try await provider.request(.plain) }
        try await entered.wait(forAtLeast: 1)
        task.cancel()

        #expect(try await task.value.statusCode == 299)
    }

    @Test("a Cancellable cancelled at once delivers .cancelled through the plugins to the completion")
    func cancellable() async throws {
        for _ in 0..<20 {
            let log = HookLog()
            let entered = CallCounter()
            let done = Collected()
            let provider = Provider<TestAPI>.scripted(
                ScriptedTransport(), plugins: [WaitForCancel(entered: entered), RecordingPlugin(name: "r", log: log)])
            let handle = provider.request(.plain, callbackQueue: .global()) { done.add(0, $0) }
            try await entered.wait(forAtLeast: 1)
            handle.cancel()
            try await done.wait(forCount: 1)
            #expect(done.result(0)?.failureIsCancelled == true)
            #expect(log.all == ["r.prepare", "r.didReceive", "r.process"])
        }
    }

    @Test("other failures before sending still skip the plugins' didReceive")
    func otherFailures() async {
        let log = HookLog()
        let provider = Provider<TestAPI>.scripted(
            ScriptedTransport(), plugins: [ThrowingPlugin(), RecordingPlugin(name: "r", log: log)])
        await #expect(throws: CourierError.self) { try await provider.request(.plain) }
        #expect(log.all.isEmpty)
    }
}
