/// Progress reporting for the request running in the current task.
///
/// A task-local, so that the progress forms can go through the overridable
/// `request(_:)` (and its refresh and replay logic) without a second entry point.
/// `Provider.send(_:)` reads it once and runs the plugins without it, so requests made
/// inside plugins never report into the outer request's progress.
enum ProgressContext {
    /// Receives the bytes transferred so far and the total, when known.
    typealias Report = @Sendable (_ completedBytes: Int64, _ totalBytes: Int64?) -> Void

    /// The tracker of the request running in this task, if it reports progress.
    ///
    /// A class, not an optional closure: with Swift 6.3.1, a task-local whose value is an
    /// optional function type crashes in `swift_task_localValuePush` in optimized builds.
    @TaskLocal static var current: ProgressTracker?
}
