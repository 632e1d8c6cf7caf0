/// Progress reporting for the request running in the current task.
///
/// A task-local, so that the progress forms can go through the overridable
/// `request(_:)` (and its refresh and replay logic) without a second entry point.
/// `Provider.send(_:)` reads it once and runs the plugins without it, so requests made
/// inside plugins never report into the outer request's progress.
enum ProgressContext {
    /// Receives the bytes transferred so far and the total, when known.
    typealias Report = @Sendable (_ completedBytes: Int64, _ totalBytes: Int64?) -> Void

    @TaskLocal static var current: Report?
}
