import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): delay seconds or an HTTP date.
enum RetryAfter {
    /// The wait the header asks for, in seconds (0 for a date in the past), or `nil` when
    /// there is no readable header.
    static func seconds(in response: HTTPURLResponse?, now: Date) -> TimeInterval? {
        guard let value = response?.value(forHTTPHeaderField: "Retry-After") else { return nil }
        return seconds(from: value, now: now)
    }

    static func seconds(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                return max(0, date.timeIntervalSince(now))
            }
        }
        return nil
    }

    /// IMF-fixdate, then the obsolete RFC 850 and asctime forms that recipients must accept.
    private static let httpDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]
}
