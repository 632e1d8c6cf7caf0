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
        { _ in .delayed(seconds: seconds) }
    }

    // The same helpers as values. Passing an unapplied method, as in
    // `Provider(stubClosure: Provider.immediatelyStub)`, makes a Swift 5 language mode app
    // warn that a non-Sendable function is converted to `@Sendable`; these closures already
    // are `@Sendable`, and the compiler picks them for such an argument.

    /// ``neverStub(_:)`` as a `@Sendable` closure, for `stubClosure: Provider.neverStub`.
    public static var neverStub: StubClosure { { _ in .never } }

    /// ``immediatelyStub(_:)`` as a `@Sendable` closure, so that
    /// `Provider(stubClosure: Provider.immediatelyStub)` compiles without a warning in Swift 5
    /// language mode too.
    public static var immediatelyStub: StubClosure { { _ in .immediate } }
}
