import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `requestPublisher` does, driven without Combine: the subscription's core starts on
/// demand, delivers one value then the end on the subscriber's scheduler, and cancels the
/// request with the subscription.
@Suite("Request publisher's subscription (RequestSubscriptionCore)", .timeLimit(.minutes(10)))
struct RequestSubscriptionCoreTests {
    /// What the subscriber saw, in order.
    enum Event: Sendable, Equatable {
        case value(String)
        case finished
        case failed(String)
    }

    /// A subscriber's record, and a scheduler that counts the deliveries it runs.
    final class Subscriber: Sendable {
        let events = LockIsolated<[Event]>([])
        let scheduled = CallCounter()

        func core(_ operation: @escaping RequestSubscriptionCore<String>.Operation) -> RequestSubscriptionCore<String> {
            RequestSubscriptionCore(
                operation: operation,
                schedule: { [scheduled] delivery in
                    _ = scheduled.increment()
                    DispatchQueue.global().async(execute: delivery)
                },
                receive: { [events] value in events.withValue { $0.append(.value(value)) } },
                finish: { [events] error in
                    events.withValue { $0.append(error.map { .failed($0.shortName) } ?? .finished) }
                })
        }

        @discardableResult
        func waitForEnd() async throws -> [Event] {
            try await events.wait { events in events.contains { !$0.isValue } }
        }
    }

    @Test("nothing starts before a positive demand; the first one starts the request once")
    func startsOnDemand() async throws {
        let calls = CallCounter()
        let subscriber = Subscriber()
        let core = subscriber.core {
            _ = calls.increment()
            return .success("hello")
        }
        core.request(0)
        #expect(calls.value == 0)
        core.request(1)
        core.request(5)
        core.request(Int.max)
        let events = try await subscriber.waitForEnd()
        #expect(events == [.value("hello"), .finished])
        #expect(calls.value == 1)
        #expect(subscriber.scheduled.value == 1)
        #expect(core.hasEnded)
    }

    @Test("a failure ends the subscription with the error, and no value")
    func failure() async throws {
        let subscriber = Subscriber()
        let core = subscriber.core { .failure(.cancelled) }
        core.request(1)
        #expect(try await subscriber.waitForEnd() == [.failed("cancelled")])
    }

    @Test("cancelled before any demand: the request never starts and nothing is delivered")
    func cancelledBeforeDemand() async throws {
        let calls = CallCounter()
        let subscriber = Subscriber()
        let core = subscriber.core {
            _ = calls.increment()
            return .success("never")
        }
        core.cancel()
        core.request(1)
        #expect(core.hasEnded)
        #expect(calls.value == 0)
        #expect(subscriber.events.value.isEmpty)
    }

    @Test("cancelling the subscription cancels the request in flight; nothing is delivered")
    func cancelledInFlight() async throws {
        let started = Gate()
        let sawCancellation = Gate()
        let subscriber = Subscriber()
        let core = subscriber.core {
            started.open()
            // Waits until the subscription cancels the request's task (a stream nobody feeds
            // ends its iteration when the task is cancelled).
            for await _ in AsyncStream<Void>.makeStream().stream {}
            if Task.isCancelled { sawCancellation.open() }
            return .success("too late")
        }
        core.request(1)
        try await started.wait()
        core.cancel()
        try await sawCancellation.wait()
        #expect(core.hasEnded)
        #expect(subscriber.events.value.isEmpty)
    }

    @Test("a cancellation that comes after the answer but before the scheduler runs wins")
    func cancelledBeforeDelivery() async throws {
        let release = Gate()
        let delivered = Gate()
        let events = LockIsolated<[Event]>([])
        let core = RequestSubscriptionCore<String>(
            operation: { .success("held") },
            schedule: { delivery in
                Task {
                    try? await release.wait()
                    delivery()
                    delivered.open()
                }
            },
            receive: { value in events.withValue { $0.append(.value(value)) } },
            finish: { _ in events.withValue { $0.append(.finished) } })
        core.request(1)
        try await release.waitForWaiting(1)
        core.cancel()
        release.open()
        try await delivered.wait()
        #expect(events.value.isEmpty)
    }

    @Test("through a provider: the response, then the end; the decoding variant follows request(_:as:)'s rules")
    func throughProvider() async throws {
        let provider = Provider<TestAPI>(
            transport: ClosureTransport { request in
                Response(statusCode: 200, data: Data(#"{"name":"Ada"}"#.utf8), request: request.urlRequest)
            })
        let responses = LockIsolated<[Int]>([])
        let ended = Gate()
        let core = RequestSubscriptionCore<Response>(
            operation: provider.publisherOperation(.user(id: 1)),
            schedule: { delivery in DispatchQueue.main.async(execute: delivery) },
            receive: { response in responses.withValue { $0.append(response.statusCode) } },
            finish: { error in if error == nil { ended.open() } })
        core.request(1)
        try await ended.wait()
        #expect(responses.value == [200])

        struct User: Decodable { let name: String }
        let response = try await provider.request(.user(id: 1))
        let user = try Provider<TestAPI>.decoded(response, as: User.self, decoder: JSONDecoder()).get()
        #expect(user.name == "Ada")
        let rejected = Response(statusCode: 404, data: Data(), request: response.request)
        let failure = Provider<TestAPI>.decoded(rejected, as: User.self, decoder: JSONDecoder())
        #expect(throws: CourierError.self) { try failure.get() }
        if case .failure(let error) = failure { #expect(error.response?.statusCode == 404) }
        let garbled = Response(statusCode: 200, data: Data("{".utf8), request: response.request)
        #expect(throws: CourierError.self) {
            try Provider<TestAPI>.decoded(garbled, as: User.self, decoder: JSONDecoder()).get()
        }
    }

    @Test("through a provider: each subscription sends the request again (so retry resends)")
    func eachSubscriptionSends() async throws {
        let transport = GatedTransport(
            answering: ClosureTransport { request in
                Response(statusCode: 204, data: Data(), request: request.urlRequest)
            })
        transport.open()
        let provider = Provider<TestAPI>(transport: transport)
        let operation = provider.publisherOperation(.plain)
        for round in 1...2 {
            let subscriber = LockIsolated(0)
            let core = RequestSubscriptionCore<Response>(
                operation: operation, schedule: { $0() }, receive: { _ in subscriber.withValue { $0 += 1 } },
                finish: { _ in subscriber.withValue { $0 += 10 } })
            core.request(1)
            #expect(try await subscriber.wait { $0 == 11 } == 11)
            #expect(transport.requests.count == round)
        }
    }

    @Test("through a provider: cancelling the subscription cancels the transfer")
    func cancelsTheTransfer() async throws {
        let transport = GatedTransport(
            answering: ClosureTransport { request in
                Response(statusCode: 200, data: Data(), request: request.urlRequest)
            })
        let provider = Provider<TestAPI>(transport: transport)
        let events = LockIsolated(0)
        let core = RequestSubscriptionCore<Response>(
            operation: provider.publisherOperation(.user(id: 2)), schedule: { $0() },
            receive: { _ in events.withValue { $0 += 1 } }, finish: { _ in events.withValue { $0 += 1 } })
        core.request(1)
        try await transport.waitForWaitingRequests(1)
        core.cancel()
        try await transport.waitForCancellations(1)
        #expect(events.value == 0)
    }
}

extension RequestSubscriptionCoreTests.Event {
    var isValue: Bool {
        if case .value = self { return true }
        return false
    }
}

extension CourierError {
    /// The case's name, for the tests' records.
    fileprivate var shortName: String {
        if case .cancelled = self { return "cancelled" }
        return "other"
    }
}
