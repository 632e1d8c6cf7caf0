/// The default ``TargetType/route``: the type and case name, worked out by reflection (only
/// when telemetry asks), with what is known of each target type kept.
enum TargetRoute {
    static func name<Target: TargetType>(of target: Target) -> String {
        let kind = Kind.of(target)
        guard kind.isEnum, !kind.describesItself else { return kind.typeName }
        // A plain value of at most 16 bytes (an enum whose payloads are numbers, or none) is
        // its bytes: the same bytes are the same case, so its name is worked out once.
        // Reflection costs more than the rest of a span.
        guard _isPOD(Target.self), MemoryLayout<Target>.size <= 16 else { return reflectedName(of: target, kind) }
        var key = ValueKey(type: ObjectIdentifier(Target.self), low: 0, high: 0)
        withUnsafeBytes(of: target) { bytes in
            withUnsafeMutableBytes(of: &key.low) { low in
                withUnsafeMutableBytes(of: &key.high) { high in
                    for (index, byte) in bytes.enumerated() {
                        if index < 8 { low[index] = byte } else { high[index - 8] = byte }
                    }
                }
            }
        }
        if let known = names.withValue({ $0[key] }) { return known }
        let name = reflectedName(of: target, kind)
        // Bounded: payloads such as ids would otherwise grow it with every value.
        names.withValue { if $0.count < 1024 { $0[key] = name } }
        return name
    }

    /// A plain value's type and bytes.
    private struct ValueKey: Hashable {
        let type: ObjectIdentifier
        var low: UInt64
        var high: UInt64
    }

    private static let names = Locked<[ValueKey: String]>([:])

    private static func reflectedName(of target: some TargetType, _ kind: Kind) -> String {
        // An enum case describes itself as its name, followed by its payload in parentheses.
        let description = String(describing: target)
        guard let parenthesis = description.utf8.firstIndex(of: UInt8(ascii: "(")) else {
            return kind.typeName + "." + description
        }
        return kind.typeName + "." + description[..<parenthesis]
    }

    /// What a route needs to know of a target type, worked out once per type.
    private struct Kind: Sendable {
        let typeName: String
        let isEnum: Bool
        /// Whether the type has a description of its own, which would not be its case name.
        let describesItself: Bool

        static func of<Target: TargetType>(_ target: Target) -> Kind {
            let key = ObjectIdentifier(Target.self)
            if let known = known.withValue({ $0[key] }) { return known }
            let kind = Kind(
                typeName: String(describing: Target.self),
                isEnum: Mirror(reflecting: target).displayStyle == .enum,
                describesItself: target is any CustomStringConvertible || target is any CustomDebugStringConvertible
                    || target is any TextOutputStreamable)
            // Bounded: an app has a handful of target types.
            known.withValue { if $0.count < 1024 { $0[key] = kind } }
            return kind
        }

        private static let known = Locked<[ObjectIdentifier: Kind]>([:])
    }
}
