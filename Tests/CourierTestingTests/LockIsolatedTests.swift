import CourierTesting
import Testing

@Suite("LockIsolated")
struct LockIsolatedTests {
    @Test("holds, replaces and changes a value")
    func basics() {
        let box = LockIsolated([1])
        #expect(box.value == [1])
        box.setValue([2])
        let count = box.withValue { value -> Int in
            value.append(3)
            return value.count
        }
        #expect(count == 2)
        #expect(box.value == [2, 3])
    }

    @Test("read-modify-write in withValue loses no update when many tasks race", arguments: 1...5)
    func concurrentIncrements(round: Int) async {
        let box = LockIsolated(0)
        let tasks = 50
        let increments = 200
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<increments { box.withValue { $0 += 1 } }
                }
            }
        }
        #expect(box.value == tasks * increments)
    }

    @Test("an error thrown inside withValue reaches the caller and keeps the changes made before it")
    func errorInside() {
        struct Failure: Error {}
        let box = LockIsolated("a")
        #expect(throws: Failure.self) {
            try box.withValue { value in
                value += "b"
                throw Failure()
            }
        }
        #expect(box.value == "ab")
        // The lock was released: the box is usable again.
        box.setValue("c")
        #expect(box.value == "c")
    }
}
