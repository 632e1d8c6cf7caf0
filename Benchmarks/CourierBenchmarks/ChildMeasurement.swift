import Foundation

/// Measurements that need a fresh process (memory), run by spawning this executable again
/// with `--child NAME`; the child prints one line of JSON as its last line.
enum ChildMeasurement {
    static func run(_ name: String, count: Int, quick: Bool) async -> Int32 {
        do {
            let values: [String: Double]
            switch name {
            case "queue-memory": values = try await QueuedMemoryChild.run(count: count)
            case "task-memory": values = try await QueuedMemoryChild.runFloor(count: count)
            case "queue-session": values = try await QueuedMemoryBreakdown.runSession(count: count)
            case "queue-plugin": values = try await QueuedMemoryBreakdown.runPlugin(count: count)
            case "upload-memory": values = try await UploadMemoryChild.run(megabytes: count)
            case "fault-soak": values = try await FaultSoakChild.run(seconds: count)
            case "crossprocess-storm": values = try await CrossProcessStormChild.run(count: count)
            case "bomb-memory": values = try await BombMemoryChild.run(count: count)
            default:
                progress("unknown child measurement \(name)")
                return 2
            }
            print(
                ResultPrinter.json(values.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.number($0.value)) })
                    .replacingOccurrences(of: "\n", with: " "))
            return 0
        } catch {
            progress("child \(name) failed: \(error)")
            return 1
        }
    }
}

/// Runs this executable again with other arguments and reads the JSON object it prints.
enum ChildProcess {
    struct Output {
        let values: [String: Any]

        func number(_ key: String) throws -> Double {
            guard let value = values[key] as? NSNumber else {
                throw StormFailure(description: "the child's output has no number \(key)")
            }
            return value.doubleValue
        }
    }

    /// This very executable; /proc/self/exe on Linux, else the path it was started with.
    static var executable: URL {
        if FileManager.default.fileExists(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }

    static func run(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw StormFailure(
                description: "child \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        let lastLine = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        guard let object = try JSONSerialization.jsonObject(with: Data(lastLine.utf8)) as? [String: Any] else {
            throw StormFailure(description: "child \(arguments.joined(separator: " ")) printed no JSON object")
        }
        return Output(values: object)
    }
}
