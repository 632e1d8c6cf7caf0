import Foundation
import Testing

@testable import Courier

/// What a refresh's time-out counts from: the moment its closure was called, not the moment
/// its task was queued, and never after the closure has returned.
@Suite("AuthSession.OperationProgress", .timeLimit(.minutes(20)))
struct AuthSessionOperationProgressTests {
    typealias Progress = AuthSession.OperationProgress

    @Test("a time-out waits for the operation to begin, and counts from when it did")
    func waitsForTheBeginning() async {
        for _ in 0..<200 {
            let progress = Progress()
            let waiting = Task { await progress.began() }
            #expect(!progress.hasEnded)
            let beforeBegin = ContinuousClock.now
            progress.begin()
            let began = await waiting.value
            #expect(began >= beforeBegin)
            #expect(await progress.began() == began, "every later question gets the same instant")
        }
    }

    @Test("many time-outs armed before the operation begins all learn the same instant")
    func manyWaiters() async {
        for _ in 0..<20 {
            let progress = Progress()
            let instants = await withTaskGroup(of: ContinuousClock.Instant.self) { group in
                for _ in 0..<50 { group.addTask { await progress.began() } }
                group.addTask {
                    progress.begin()
                    return await progress.began()
                }
                var instants: Set<ContinuousClock.Instant> = []
                for await instant in group { instants.insert(instant) }
                return instants
            }
            #expect(instants.count == 1)
        }
    }

    @Test("an operation that returned is ended, so its time-out lets its answer through")
    func endedOperation() async {
        let progress = Progress()
        progress.begin()
        let began = await progress.began()
        #expect(!progress.hasEnded)
        progress.end()
        #expect(progress.hasEnded)
        #expect(await progress.began() == began, "ending keeps the instant it began")
        progress.begin()
        #expect(progress.hasEnded, "a second begin changes nothing")
    }

    @Test("an end without a beginning still releases the time-outs that wait for it")
    func endWithoutBeginning() async {
        let progress = Progress()
        let waiting = Task { await progress.began() }
        progress.end()
        _ = await waiting.value
        #expect(progress.hasEnded)
    }
}
