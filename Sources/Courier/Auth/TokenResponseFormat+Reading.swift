import Foundation

extension TokenResponseFormat {
    /// The name of the lifetime field (the last component of its key path), whose number
    /// Foundation may refuse (`1e309`), or `nil` when the expiry is not a lifetime.
    var lifetimeKey: String? {
        guard case .lifetime(let keyPath) = expiry else { return nil }
        return keyPath.split(separator: ".").last.map(String.init)
    }

    /// Seconds since 1970 beyond which a number is read as milliseconds: in seconds, it is the
    /// year 5138.
    static let millisecondsThreshold: Double = 100_000_000_000

    /// A ``Expiry/date(_:)`` field's value as a date: an ISO 8601 string, or seconds (or
    /// milliseconds) since 1970 as a number or a string holding one.
    static func date(_ value: Any?) -> Date? {
        switch value {
        case is Bool:
            // A JSON `true` (on Apple platforms, an NSNumber of 0 or 1 too): no date worth reading.
            return nil
        case let number as NSNumber:
            return epoch(number.doubleValue)
        case let string as String:
            let text = string.trimmingCharacters(in: .whitespaces)
            if let seconds = Double(text) { return epoch(seconds) }
            return iso8601(text)
        default:
            return nil
        }
    }

    private static func epoch(_ value: Double) -> Date? {
        guard value.isFinite else { return nil }
        return Date(timeIntervalSince1970: abs(value) > millisecondsThreshold ? value / 1000 : value)
    }

    /// `2026-12-01T22:00:00Z`, `2026-12-01T22:00:00.250+01:00`.
    private static func iso8601(_ text: String) -> Date? {
        // Longer than any date: a megabyte is not handed to the formatter.
        guard text.utf8.count <= 64 else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
