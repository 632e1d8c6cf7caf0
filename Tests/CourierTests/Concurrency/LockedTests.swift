import Foundation
import Testing

@testable import Courier

/// The one lock-protected box that Courier's shared state lives in.
@Suite("Locked")
struct LockedTests {
    @Test("changes made from many threads at once are never lost — 20 rounds", arguments: 0..<20)
    func concurrentChanges(round: Int) async {
        let box = Locked([Int: Int]())
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<32 {
                group.addTask {
                    for step in 0..<200 {
                        box.withValue { $0[task, default: 0] += step % 2 == 0 ? 2 : -1 }
                    }
                }
            }
        }
        #expect(box.value.count == 32)
        #expect(box.value.values.allSatisfy { $0 == 100 })
    }

    @Test("withLock returns what its body returns, and a throwing body leaves the changes it made")
    func returnsAndRethrows() {
        struct Stop: Error {}
        let box = Locked(0)
        #expect(
            box.withValue { value -> Int in
                value += 1
                return value * 10
            } == 10)
        #expect(throws: Stop.self) {
            try box.withValue { value in
                value += 1
                throw Stop()
            }
        }
        #expect(box.value == 2)
    }
}
