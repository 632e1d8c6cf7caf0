import Foundation

/// A `DecodingError` in words: what was expected where (`users[0].id`), without Swift's
/// `CodingKeys(stringValue:…)` noise.
enum DecodingFailure {
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(String(describing: type)) at \(path(context.codingPath))"
                + reason(context.debugDescription)
        case .valueNotFound(let type, let context):
            return "expected \(String(describing: type)) at \(path(context.codingPath)) but found null or nothing"
        case .keyNotFound(let key, let context):
            return "the key \"\(key.stringValue)\" is missing at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "the data at \(path(context.codingPath)) is not valid" + reason(context.debugDescription)
        @unknown default:
            return ErrorText.clause(String(describing: error))
        }
    }

    /// `users[0].id`, or `the top level`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        var result = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
                result += "[\(index)]"
            } else {
                result += (result.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return result
    }

    private static func reason(_ debugDescription: String) -> String {
        let text = ErrorText.clause(debugDescription)
        return text.isEmpty ? "" : " (\(ErrorText.quote(text)))"
    }
}
