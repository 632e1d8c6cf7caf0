/// The median and range of a set of samples (one sample per round).
struct Summary: Sendable {
    /// The samples, in the order they were taken.
    let samples: [Double]
    let median: Double
    let min: Double
    let max: Double

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "a summary needs at least one sample")
        self.samples = samples
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    /// The summary of `a[i] / b[i]`, round by round.
    static func ratios(_ a: [Double], _ b: [Double]) -> Summary {
        Summary(zip(a, b).map { $0 / $1 })
    }

    /// `median [min–max]` with `digits` fraction digits.
    func formatted(_ digits: Int = 2, unit: String = "") -> String {
        let suffix = unit.isEmpty ? "" : " " + unit
        return "\(Format.number(median, digits))\(suffix) [\(Format.number(min, digits))–\(Format.number(max, digits))]"
    }
}

/// Number formatting without Foundation's locale machinery.
enum Format {
    static func number(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if text.contains("e") { return text }
        if let dot = text.firstIndex(of: ".") {
            let fraction = text[text.index(after: dot)...].count
            if digits == 0 {
                text = String(text[..<dot])
            } else if fraction < digits {
                text += String(repeating: "0", count: digits - fraction)
            }
        }
        return text
    }

    static func integer(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(character)
        }
        return value < 0 ? "-" + grouped : grouped
    }
}
