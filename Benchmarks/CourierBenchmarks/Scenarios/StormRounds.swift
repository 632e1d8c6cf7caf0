import CourierTestServer
import Foundation

/// The alternating storms of the cross-process and fleet scenarios: a group of storm children
/// sharing one credential (a token file, or a database key) against one child sending as many
/// requests alone, each round after the server expired every access token, in the order A B,
/// then B A, so a slow spell of the machine hits both alike.
struct StormRounds {
    /// Seconds from GO to the slowest group child's last success, per round.
    var together: [Double] = []
    /// Seconds from GO to the lone child's last success, per round.
    var apart: [Double] = []
    /// Refresh grants the server saw in each group storm.
    var refreshes: [Int] = []
    /// Requests the server answered 401 in each group storm.
    var rejected: [Int] = []
    /// Refresh grants the server saw in each lone storm.
    var singleRefreshes: [Int] = []
    /// Refresh tokens presented twice, all rounds.
    var reuses = 0
    /// Requests that failed, all rounds.
    var failures = 0

    /// Waits for every child's READY, then runs `rounds` rounds.
    static func run(server: TestServer, group: [StormChildProcess], single: StormChildProcess, rounds: Int)
        async throws -> StormRounds
    {
        var groupLines = group.map { $0.lines.makeAsyncIterator() }
        var singleLines = single.lines.makeAsyncIterator()
        for index in groupLines.indices { try await CrossProcessScenario.expect("READY", from: &groupLines[index]) }
        try await CrossProcessScenario.expect("READY", from: &singleLines)
        var result = StormRounds()
        for round in 0..<rounds {
            for step in round % 2 == 0 ? [true, false] : [false, true] {
                try await server.expireAccessTokens()
                try await server.resetCounters()
                if step {
                    for child in group { child.send("GO") }
                    var slowest = 0.0
                    for index in groupLines.indices {
                        let report = try await CrossProcessScenario.result(from: &groupLines[index])
                        slowest = max(slowest, report.seconds)
                        result.failures += report.failures
                    }
                    result.together.append(slowest)
                    let counters = try await server.counters()
                    result.refreshes.append(counters.refreshGrants)
                    result.rejected.append(counters.protected401)
                    result.reuses += counters.refreshTokenReuses
                } else {
                    single.send("GO")
                    let report = try await CrossProcessScenario.result(from: &singleLines)
                    result.apart.append(report.seconds)
                    result.failures += report.failures
                    result.singleRefreshes.append(try await server.counters().refreshGrants)
                }
            }
        }
        return result
    }
}
