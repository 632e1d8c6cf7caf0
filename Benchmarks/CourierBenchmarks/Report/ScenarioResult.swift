/// One value of the flat JSON result object.
enum JSONValue: Sendable {
    case number(Double)
    case integer(Int)
    case text(String)
    case bool(Bool)

    var json: String {
        switch self {
        case .number(let value): value.isFinite ? "\(value)" : "null"
        case .integer(let value): "\(value)"
        case .bool(let value): value ? "true" : "false"
        case .text(let value): JSONValue.quoted(value)
        }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// Whether a measured value meets its target.
enum Verdict: Sendable {
    case met
    case missed
    /// No target: a reference value or context.
    case info

    var label: String {
        switch self {
        case .met: "met"
        case .missed: "MISSED"
        case .info: ""
        }
    }
}

/// One line of the results table.
struct Row: Sendable {
    var scenario: String
    var metric: String
    var measured: String
    var target: String = ""
    var verdict: Verdict = .info
}

/// What one scenario measured: table rows, JSON keys, and notes for the reader.
struct ScenarioResult: Sendable {
    var rows: [Row] = []
    var values: [(key: String, value: JSONValue)] = []
    var notes: [String] = []

    mutating func set(_ key: String, _ value: Double) { values.append((key, .number(value))) }
    mutating func set(_ key: String, _ value: Int) { values.append((key, .integer(value))) }
    mutating func set(_ key: String, _ value: String) { values.append((key, .text(value))) }
    mutating func set(_ key: String, _ value: Bool) { values.append((key, .bool(value))) }

    /// `key` (the median), `key_min` and `key_max`.
    mutating func set(_ key: String, _ summary: Summary) {
        set(key, summary.median)
        set(key + "_min", summary.min)
        set(key + "_max", summary.max)
    }

    mutating func append(_ other: ScenarioResult) {
        rows += other.rows
        values += other.values
        notes += other.notes
    }
}
