import Foundation

/// Prints the table and writes the JSON file.
enum ResultPrinter {
    /// A Markdown table (readable as plain text too).
    static func table(_ rows: [Row]) -> String {
        let header = ["Scenario", "Metric", "Measured: median [min–max]", "Target", ""]
        let cells = rows.map { [$0.scenario, $0.metric, $0.measured, $0.target, $0.verdict.label] }
        var widths = header.map { $0.count }
        for line in cells {
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func render(_ line: [String]) -> String {
            "| "
                + line.enumerated().map { index, cell in
                    cell + String(repeating: " ", count: widths[index] - cell.count)
                }.joined(separator: " | ") + " |"
        }
        var lines = [
            render(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|",
        ]
        lines += cells.map(render)
        return lines.joined(separator: "\n")
    }

    /// One flat JSON object, keys in the order they were measured.
    static func json(_ values: [(key: String, value: JSONValue)]) -> String {
        var seen = Set<String>()
        var lines: [String] = []
        for (key, value) in values where seen.insert(key).inserted {
            lines.append("  \(JSONValue.quoted(key)): \(value.json)")
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
