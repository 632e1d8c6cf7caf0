import Courier
import CourierTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Provider pipeline", .timeLimit(.minutes(20)))
struct ProviderPipelineTests {
    @Test("plugins run in order — prepare, willSend, didReceive, process — for stubbed and transported requests")
    func hookOrder() async throws {
        for stubbed in [true, false] {
            let log = HookLog()
            let plugins = [RecordingPlugin(name: "A", log: log), RecordingPlugin(name: "B", log: log)]
            let provider = Provider<TestAPI>(
                stubClosure: stubbed ? Provider.immediatelyStub : Provider.neverStub,
                transport: ImmediateTransport(statusCode: 200, data: Data("{}".utf8)),
                plugins: plugins)
            _ = try await provider.request(.plain)
            #expect(
                log.all == [
                    "A.prepare", "B.prepare", "A.willSend", "B.willSend", "A.didReceive", "B.didReceive",
                    "A.process", "B.process",
                ])
        }
    }

    @Test("what prepare changes is what is sent, and Response.request shows it")
    func prepareChangesRequest() async throws {
        let log = HookLog()
        let provider = Provider<TestAPI>(
            transport: ImmediateTransport(),
            plugins: [
                RecordingPlugin(name: "A", log: log, header: ("X-Trace", "1")),
                RecordingPlugin(name: "B", log: log, header: ("X-Trace", "2")),
            ])
        let response = try await provider.request(.plain)
        #expect(response.request?.value(forHTTPHeaderField: "X-Trace") == "2")
        #expect(response.request?.value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test("a plugin whose prepare throws fails the request with that error and nothing is sent")
    func prepareThrows() async {
        let log = HookLog()
        let transport = ScriptedTransport()
        transport.always(.status(200), for: .any)
        let provider = Provider<TestAPI>(
            transport: transport,
            plugins: [ThrowingPlugin(), RecordingPlugin(name: "A", log: log)])
        await #expect {
            try await provider.request(.plain)
        } throws: { error in
            guard case .underlying(let underlying, nil) = error as? CourierError else { return false }
            return underlying is ThrowingPlugin.Refused
                && "\(error)".contains("the plugin refused to sign the request")
        }
        #expect(transport.requestCount == 0)
        #expect(log.all.isEmpty)
    }

    @Test("process may replace the result")
    func processReplaces() async throws {
        struct FailEverything: PluginType {
            func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<
                Response, CourierError
            > {
                .failure(.requestMapping("replaced"))
            }
        }
        let provider = Provider<TestAPI>(stubClosure: Provider.immediatelyStub, plugins: [FailEverything()])
        await #expect {
            try await provider.request(.plain)
        } throws: { error in
            if case .requestMapping("replaced") = error as? CourierError { return true }
            return false
        }
    }

    @Test("validation turns a refused status into statusCode, seen by didReceive")
    func validationSeenByPlugins() async throws {
        struct Capture: PluginType {
            let log: HookLog
            func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
                if case .failure(.statusCode(let response)) = result { log.append("status \(response.statusCode)") }
            }
        }
        let log = HookLog()
        let provider = Provider<TestAPI>(
            transport: ImmediateTransport(statusCode: 404), plugins: [Capture(log: log)])
        await #expect(throws: CourierError.self) { try await provider.request(.validated) }
        #expect(log.all == ["status 404"])
        // Without validation the same answer is a response.
        #expect(try await provider.request(.plain).statusCode == 404)
    }

    @Test("request(_:as:) decodes 2xx bodies and reports other codes as statusCode")
    func decodable() async throws {
        let ok = Provider<TestAPI>(stubClosure: Provider.immediatelyStub)
        #expect(try await ok.request(.user(id: 9), as: User.self) == User(id: 9, name: "Ada"))

        let notFound = Provider<TestAPI>(transport: ImmediateTransport(statusCode: 404, data: Data("{}".utf8)))
        await #expect {
            try await notFound.request(.user(id: 9), as: User.self)
        } throws: { error in
            if case .statusCode(let response) = error as? CourierError { return response.statusCode == 404 }
            return false
        }

        let garbage = Provider<TestAPI>(transport: ImmediateTransport(statusCode: 200, data: Data("[]".utf8)))
        await #expect {
            try await garbage.request(.user(id: 9), as: User.self)
        } throws: { error in
            if case .objectMapping = error as? CourierError { return true }
            return false
        }
    }

    @Test("the completion API delivers on the given callback queue, then on the provider's")
    func completionQueue() async throws {
        let key = DispatchSpecificKey<String>()
        let callQueue = DispatchQueue(label: "call")
        callQueue.setSpecific(key: key, value: "call")
        let providerQueue = DispatchQueue(label: "provider")
        providerQueue.setSpecific(key: key, value: "provider")
        let provider = Provider<TestAPI>(stubClosure: Provider.immediatelyStub, callbackQueue: providerQueue)

        let onCallQueue = await withCheckedContinuation { continuation in
            provider.request(.plain, callbackQueue: callQueue) { result in
                continuation.resume(returning: (DispatchQueue.getSpecific(key: key), (try? result.get())?.statusCode))
            }
        }
        #expect(onCallQueue.0 == "call")
        #expect(onCallQueue.1 == 200)

        let onProviderQueue = await withCheckedContinuation { continuation in
            provider.request(.plain) { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key)) }
        }
        #expect(onProviderQueue == "provider")
    }

    @Test("cancelling the Cancellable delivers .cancelled promptly")
    func cancellable() async throws {
        let waiting = CallCounter()
        // The stub waits an hour, longer than the suite's time limit: only the cancel can end
        // the request before that.
        let provider = Provider<TestAPI>(
            stubClosure: Provider.delayedStub(3_600), callbackQueue: DispatchQueue(label: "c"),
            plugins: [WillSendSignal(counter: waiting)])
        let results = Collected()
        let request = provider.request(.plain) { result in results.add(0, result) }
        try await waiting.wait(forAtLeast: 1)
        request.cancel()
        #expect(request.isCancelled)
        try await results.wait(forCount: 1)
        #expect(results.result(0)?.failureIsCancelled == true)
    }

    @Test("MultiTarget forwards every property of the wrapped target")
    func multiTarget() async throws {
        let provider = Provider<MultiTarget>(stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(MultiTarget(TestAPI.user(id: 5)))
        #expect(try response.map(User.self).id == 5)
        #expect(response.request?.url?.path == "/v1/users/5")
        let target = MultiTarget(TestAPI.create(name: "x"))
        #expect(target.method == .post)
        #expect(target.headers == ["Accept": "application/json"])
        #expect(target.validationType == .none)
    }
}
