import Foundation
import MainActorApp

let failures = await runScenario()
if failures.isEmpty {
    print("MainActorApp: refresh, replay, completion, JSON body, unsigned targets and stubs all behave")
} else {
    for failure in failures { print("MainActorApp: FAILED: \(failure)") }
    exit(1)
}
