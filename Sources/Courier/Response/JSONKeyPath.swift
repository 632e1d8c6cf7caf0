import Foundation

/// Walks decoded JSON by a dot-separated key path, with our own code: Foundation's key-value
/// coding, which Moya uses, does not exist on Linux.
enum JSONKeyPath {
    /// Why a key path could not be followed.
    enum Failure: Error, CustomStringConvertible {
        case missingKeyPath(String)

        var description: String {
            switch self {
            case .missingKeyPath(let path): "no value at key path \"\(path)\""
            }
        }
    }

    /// The value at `keyPath` in `json`, or `nil` when a component is missing.
    ///
    /// Objects are indexed by key, arrays by a decimal index; `NSNull` counts as missing.
    static func value(at keyPath: String, in json: Any) -> Any? {
        var current: Any = json
        for component in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            if let object = current as? [String: Any] {
                guard let next = object[String(component)] else { return nil }
                current = next
            } else if let array = current as? [Any], let index = Int(component),
                array.indices.contains(index)
            {
                current = array[index]
            } else {
                return nil
            }
        }
        return current is NSNull ? nil : current
    }
}
