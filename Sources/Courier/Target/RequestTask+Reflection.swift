import Foundation

extension RequestTask: CustomReflectable {
    /// What `dump(task)` shows: the case and its parameters with secret values (`password`,
    /// `client_secret`, … as ``Redaction/default`` names them) replaced; bodies by size.
    public var customMirror: Mirror {
        let redaction = Redaction.default
        func parameters(_ values: [String: any Sendable]) -> String {
            let pairs = values.sorted { $0.key < $1.key }.map { key, value in
                let shown = redaction.isSecret(key: key) ? redaction.replacement : redaction.redact(text: "\(value)")
                return "\(key): \(shown)"
            }
            return "[" + pairs.joined(separator: ", ") + "]"
        }
        let children: KeyValuePairs<String, Any>
        switch self {
        case .requestPlain: children = [:]
        case .requestData(let data): children = ["data": "\(data.count) bytes"]
        case .requestJSONEncodable(let value), .requestCustomJSONEncodable(let value, _):
            children = ["encodable": String(describing: type(of: value))]
        case .requestParameters(let values, let encoding):
            children = ["parameters": parameters(values), "encoding": encoding]
        case .requestCompositeData(let data, let urlParameters):
            children = ["bodyData": "\(data.count) bytes", "urlParameters": parameters(urlParameters)]
        case .requestCompositeParameters(let body, let encoding, let urlParameters):
            children = [
                "bodyParameters": parameters(body), "bodyEncoding": encoding,
                "urlParameters": parameters(urlParameters),
            ]
        case .uploadFile(let url): children = ["file": url]
        case .uploadMultipart(let parts): children = ["parts": "\(parts.count) parts"]
        case .uploadCompositeMultipart(let parts, let urlParameters):
            children = ["parts": "\(parts.count) parts", "urlParameters": parameters(urlParameters)]
        case .downloadDestination: children = ["destination": "a download destination"]
        case .downloadParameters(let values, let encoding, _):
            children = [
                "parameters": parameters(values), "encoding": encoding, "destination": "a download destination",
            ]
        }
        return Mirror(self, children: children, displayStyle: .enum)
    }
}
