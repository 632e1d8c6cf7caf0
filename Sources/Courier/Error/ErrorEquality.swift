/// When two `any Error` payloads count as equal, for the `==` of ``CourierError`` and
/// ``AuthenticationError``.
///
/// Both must have the same type. Then an `Equatable` type decides with its `==`; instances
/// of a class that is not `Equatable` are equal when they are the same instance; values of
/// any other type when they print the same `String(reflecting:)` — the same case and the same
/// values, as far as the type shows them (a `DecodingError`'s coding path and message, say).
/// That is reflexive, symmetric and transitive, as `Equatable` requires.
enum ErrorEquality {
    static func equal(_ lhs: any Error, _ rhs: any Error) -> Bool {
        guard ObjectIdentifier(type(of: lhs)) == ObjectIdentifier(type(of: rhs)) else { return false }
        if let lhs = equatable(lhs) { return equal(lhs, rhs) }
        if type(of: lhs) is AnyClass { return (lhs as AnyObject) === (rhs as AnyObject) }
        return String(reflecting: lhs) == String(reflecting: rhs)
    }

    /// `value` as `Equatable`, if its type is. Through `Any`: the compiler wrongly warns that
    /// a cast from `any Error` always succeeds.
    private static func equatable(_ value: Any) -> (any Equatable)? {
        value as? any Equatable
    }

    private static func equal<Value: Equatable>(_ lhs: Value, _ rhs: any Error) -> Bool {
        (rhs as? Value) == lhs
    }
}
