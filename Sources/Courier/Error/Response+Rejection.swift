import Foundation

extension Response {
    /// What an error description needs to know about a rejected response that the response
    /// itself does not say: which status codes were accepted, which type it was decoded as.
    struct Rejection: Sendable {
        /// The accepted status codes in words (`2xx`, `200 or 304`), when known.
        var acceptedStatusCodes: String?
        /// The type the body was decoded as, when known.
        var decodedType: String?
    }

    /// This response, remembering that `validation` rejected it.
    func rejected(by validation: ValidationType) -> Response {
        var copy = self
        copy.rejection.acceptedStatusCodes = Self.describe(validation)
        return copy
    }

    /// This response, remembering that it was not in `statusCodes`.
    func rejected<R: RangeExpression>(accepting statusCodes: R) -> Response where R.Bound == Int {
        var copy = self
        copy.rejection.acceptedStatusCodes = Self.describe(statusCodes)
        return copy
    }

    /// This response, remembering that it could not be decoded as `type`.
    func rejected(decoding type: Any.Type) -> Response {
        var copy = self
        copy.rejection.decodedType = String(describing: type)
        return copy
    }

    static func describe(_ validation: ValidationType) -> String? {
        switch validation {
        case .none: nil
        case .successCodes: "2xx"
        case .successAndRedirectCodes: "2xx or 3xx"
        case .customCodes(let codes): ErrorText.list(codes.map(String.init), empty: "none")
        }
    }

    static func describe<R: RangeExpression>(_ range: R) -> String where R.Bound == Int {
        let bounds: (Int, Int)?
        switch range {
        case let closed as ClosedRange<Int>: bounds = (closed.lowerBound, closed.upperBound)
        case let open as Range<Int>: bounds = open.isEmpty ? nil : (open.lowerBound, open.upperBound - 1)
        default: bounds = nil
        }
        guard let (low, high) = bounds else { return String(describing: range) }
        if low == high { return "\(low)" }
        if low % 100 == 0, high % 100 == 99 {
            let classes = (low / 100...high / 100).map { "\($0)xx" }
            return ErrorText.list(classes, empty: "none")
        }
        return "\(low)–\(high)"
    }
}
