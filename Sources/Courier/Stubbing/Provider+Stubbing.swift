import Foundation

extension Provider {
    /// Never stubs: every request goes to the network.
    public final class func neverStub(_: Target) -> StubBehavior { .never }

    /// Answers every request at once from its sample response.
    ///
    /// ```swift
    /// let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
    /// ```
    public final class func immediatelyStub(_: Target) -> StubBehavior { .immediate }

    /// Answers every request from its sample response after `seconds`.
    ///
    /// ```swift
    /// let provider = Provider<GitHub>(stubClosure: Provider.delayedStub(0.2))
    /// ```
    public final class func delayedStub(_ seconds: TimeInterval) -> @Sendable (Target) -> StubBehavior {
        constantStub(.delayed(seconds: seconds))
    }

    // The same helpers as values. Passing an unapplied method, as in
    // `Provider(stubClosure: Provider.immediatelyStub)`, makes a Swift 5 language mode app
    // warn that a non-Sendable function is converted to `@Sendable`, and an app whose default
    // isolation is `MainActor` refuse it (the method would carry the target's main-actor
    // conformance into a `@Sendable` closure); these closures already are `@Sendable`, never
    // look at the target, and the compiler picks them for such an argument.

    /// ``neverStub(_:)`` as a `@Sendable` closure, for `stubClosure: Provider.neverStub`.
    public static var neverStub: StubClosure { constantStub(.never) }

    /// ``immediatelyStub(_:)`` as a `@Sendable` closure, so that
    /// `Provider(stubClosure: Provider.immediatelyStub)` compiles without a warning in Swift 5
    /// language mode and in an app whose default isolation is `MainActor`.
    public static var immediatelyStub: StubClosure { constantStub(.immediate) }
}

/// A stub closure that answers `behavior` whatever the target: made outside the provider's
/// generic context, it holds nothing of the target's type.
private func constantStub(_ behavior: StubBehavior) -> @Sendable (Any) -> StubBehavior {
    { _ in behavior }
}
