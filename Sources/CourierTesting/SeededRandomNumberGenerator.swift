/// A random number generator that gives the same numbers for the same seed (SplitMix64), for
/// fuzz tests: every run tries the same inputs, and a failure is replayed from its seed.
///
/// ```swift
/// var random = SeededRandomNumberGenerator(seed: 0xC0FFEE)
/// for _ in 0..<3_000 {
///     let name = String((0..<8).map { _ in "aZ0\r\n:".randomElement(using: &random)! })
///     // … send a request with a header named `name`, expect a response or a typed error …
/// }
/// ```
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
