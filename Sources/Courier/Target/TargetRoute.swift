/// The default ``TargetType/route``: the type and case name, worked out by reflection (only
/// when telemetry asks).
enum TargetRoute {
    static func name(of target: some TargetType) -> String {
        let type = String(describing: type(of: target))
        let mirror = Mirror(reflecting: target)
        guard mirror.displayStyle == .enum else { return type }
        // A case with a payload is a child labelled with the case's name.
        if let label = mirror.children.first?.label {
            return type + "." + label
        }
        // A case without one is its own description, unless the type describes itself.
        guard !(target is any CustomStringConvertible), !(target is any CustomDebugStringConvertible) else {
            return type
        }
        return type + "." + String(describing: target)
    }
}
