/// The default ``TargetType/route``: the type and case name, worked out by reflection (only
/// when telemetry asks), with what is known of each target type kept.
enum TargetRoute {
    static func name(of target: some TargetType) -> String {
        let kind = Kind.of(target)
        guard kind.isEnum, !kind.describesItself else { return kind.typeName }
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
