import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): delay seconds or an HTTP date.
///
/// The date is parsed by hand: the three fixed formats of RFC 9110 §5.6.7 need no
/// `DateFormatter`, which on Linux leaks a character set on every parse.
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
        guard let date = httpDate(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37
    /// GMT`) or asctime (`Sun Nov  6 08:49:37 1994`), always GMT.
    static func httpDate(_ text: String) -> Date? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: (Int, Int, Int)?
        switch words.count {
        case 6 where words[5] == "GMT":  // IMF-fixdate or RFC 850, weekday first
            day = Int(words[1])
            month = months.firstIndex(of: words[2].lowercased())
            year = Int(words[3]).map { words[3].count == 2 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            time = clock(words[4])
        case 5:  // asctime
            month = months.firstIndex(of: words[1].lowercased())
            day = Int(words[2])
            time = clock(words[3])
            year = Int(words[4])
        default:
            return nil
        }
        guard let day, let month, let year, let (hour, minute, second) = time,
            (1...31).contains(day), (1...9999).contains(year), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysFromCivil(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func clock(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]),
            hour >= 0, minute >= 0, second >= 0
        else { return nil }
        return (hour, minute, second)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
