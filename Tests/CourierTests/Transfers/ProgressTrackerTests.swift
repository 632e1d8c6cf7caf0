import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("ProgressTracker")
struct ProgressTrackerTests {
    /// A tracker and what it emitted.
    final class Recorder: Sendable {
        private let steps = LockIsolated<[ProgressResponse]>([])
        let tracker: ProgressTracker
        init() {
            let steps = self.steps
            tracker = ProgressTracker { step in steps.withValue { $0.append(step) } }
        }
        var all: [ProgressResponse] { steps.value }
    }

    @Test("the fraction never goes back, also when a replay starts again from zero bytes")
    func monotonicAcrossReplay() {
        let recorder = Recorder()
        let report = recorder.tracker.report
        report(50, 100)
        report(80, 100)
        report(0, 100)  // replay
        report(60, 100)
        report(90, 100)
        #expect(recorder.all.map(\.progress) == [0.5, 0.8, 0.8, 0.8, 0.9])
        #expect(recorder.all.map(\.completedBytes) == [50, 80, 0, 60, 90])
    }

    @Test("the last step carries the response at exactly 1, with the total")
    func finishCarriesResponse() throws {
        let recorder = Recorder()
        recorder.tracker.report(40, 100)
        recorder.tracker.report(100, 100)
        let response = Response(statusCode: 201, data: Data("ok".utf8))
        recorder.tracker.finish(with: response)
        let steps = recorder.all
        #expect(steps.count == 3)
        #expect(steps.map(\.progress) == [0.4, 1, 1], "every byte out: 1, while the server has not answered")
        #expect(steps.map(\.completed) == [false, false, true], "only the last step says the request finished")
        #expect(steps[2].response == response)
        #expect(steps[2].completedBytes == 100)
        #expect(steps[2].totalBytes == 100)
    }

    @Test("before the response the fraction is the true one: no 0.999999 ceiling")
    func trueFractionBeforeResponse() {
        let recorder = Recorder()
        for completed in [0, 1, 250_000, 999_999, 1_000_000] as [Int64] {
            recorder.tracker.report(completed, 1_000_000)
        }
        recorder.tracker.finish(with: Response(statusCode: 200, data: Data()))
        #expect(recorder.all.map(\.progress) == [0, 0.000_001, 0.25, 0.999_999, 1, 1])
        #expect(recorder.all.filter(\.completed).count == 1)
        #expect(recorder.all.last?.completed == true)
    }

    @Test("nothing is reported after the last step")
    func nothingAfterFinish() {
        let recorder = Recorder()
        recorder.tracker.finish(with: Response(statusCode: 200, data: Data(count: 7)))
        recorder.tracker.report(1, 2)
        recorder.tracker.finish(with: Response(statusCode: 200, data: Data()))
        #expect(recorder.all.count == 1)
        #expect(recorder.all[0].completedBytes == 7, "with no report, the body size")
    }

    @Test("an unknown or zero total reports bytes at fraction 0; the last step uses the bytes seen")
    func unknownTotal() {
        let recorder = Recorder()
        recorder.tracker.report(10, nil)
        recorder.tracker.report(20, 0)
        recorder.tracker.report(30, nil)
        recorder.tracker.finish(with: Response(statusCode: 200, data: Data()))
        #expect(recorder.all.map(\.progress) == [0, 0, 0, 1])
        #expect(recorder.all.last?.completedBytes == 30)
    }

    @Test("reports from many threads still reach the consumer in monotonic order")
    func concurrentReports() async {
        let recorder = Recorder()
        let report = recorder.tracker.report
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for step in 0..<200 { report(Int64(step * 8 + worker), 1600) }
                }
            }
        }
        let fractions = recorder.all.map(\.progress)
        #expect(fractions.count == 1600)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
    }
}
