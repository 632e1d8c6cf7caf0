import Foundation

// Readable through `localizedDescription` too, not only through `description`.

extension UnscriptedRequestError: LocalizedError {
    /// Same as ``description``.
    public var errorDescription: String? { description }
}

extension SampleResponseSequence.Exhausted: LocalizedError {
    /// Same as ``description``.
    public var errorDescription: String? { description }
}
