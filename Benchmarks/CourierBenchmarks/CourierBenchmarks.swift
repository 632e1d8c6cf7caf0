import Foundation

/// `swift run -c release CourierBenchmarks [--quick] [--json FILE] [--nginx-port PORT]`
///
/// Measures what Courier costs over the transport it wraps; see BENCHMARKS.md.
@main
enum CourierBenchmarks {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(
                Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            let message = String(describing: error)
            if !message.isEmpty { FileHandle.standardError.write(Data("error: \(message)\n".utf8)) }
            print(Options.usage)
            exit(message.isEmpty ? 0 : 2)
        }
        if let (variant, count) = options.spin {
            if let status = await CrossProcessScenario.spin(variant, count: count) { exit(status) }
            if variant.hasPrefix("dpop") { exit(await DPoPScenario.spin(variant, count: count)) }
            exit(await PipelineScenario.spin(variant, count: count))
        }
        if let child = options.child {
            exit(await ChildMeasurement.run(child, count: options.childCount, quick: options.quick))
        }
        do {
            try await Runner(options: options).run()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }
}
