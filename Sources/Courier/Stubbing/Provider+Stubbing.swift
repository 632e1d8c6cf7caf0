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
}
