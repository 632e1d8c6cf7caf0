/// Measurements that need a fresh process (memory), run by spawning this executable again
/// with `--child NAME`.
enum ChildMeasurement {
    static func run(_ name: String, quick: Bool) async -> Int32 {
        progress("unknown child measurement \(name)")
        return 2
    }
}
