/// A ``Redaction``'s names, prepared so that the redactors can test a name straight from
/// the bytes of a body, without building a `String` for each key they pass.
///
/// It answers only for the plain case — ASCII, no `-`, no `[`, at most 32 bytes — and says
/// `nil` otherwise, so that ``Redaction/isSecret(key:)`` and ``Redaction/isSecret(header:)``
/// stay the one definition of what is secret.
struct SecretNameMatcher: Sendable {
    /// The normalized field names (lower case, no `_` or `-`).
    private let keys: Set<PackedName>
    /// The secret header names, in lower case.
    private let headers: Set<PackedName>
    private let publicHeaders: Set<PackedName>
    /// The header-name fragments, in lower case; `nil` when one is not plain ASCII.
    private let fragments: [[UInt8]]?

    init(keyNames: Set<String>, headerNames: Set<String>, publicHeaderNames: Set<String>, fragments: [String]) {
        keys = Set(keyNames.compactMap { PackedName($0.utf8) })
        headers = Set(headerNames.compactMap { PackedName($0.utf8) })
        publicHeaders = Set(publicHeaderNames.compactMap { PackedName($0.utf8) })
        let fragmentBytes = fragments.map { Array($0.utf8) }
        self.fragments = fragmentBytes.allSatisfy { $0.allSatisfy { $0 < 0x80 } } ? fragmentBytes : nil
    }

    /// Whether `name` is a secret field, or `nil` when only ``Redaction/isSecret(key:)`` can
    /// tell.
    func isSecret(key name: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let (lowercased, normalized) = Self.pack(name, allowingDash: false) else { return nil }
        return keys.contains(normalized) || headers.contains(lowercased)
    }

    /// Whether `name` is a secret header, or `nil` when only ``Redaction/isSecret(header:)``
    /// can tell.
    func isSecret(header name: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let fragments, let (lowercased, _) = Self.pack(name, allowingDash: true) else { return nil }
        if headers.contains(lowercased) { return true }
        guard !fragments.isEmpty, !publicHeaders.contains(lowercased) else { return false }
        return fragments.contains { fragment in lowercased.contains(fragment) }
    }

    /// `name` in lower case, and normalized; `nil` unless it is plain.
    private static func pack(_ name: UnsafeBufferPointer<UInt8>, allowingDash: Bool) -> (PackedName, PackedName)? {
        guard name.count <= PackedName.capacity else { return nil }
        var lowercased = PackedName()
        var normalized = PackedName()
        for byte in name {
            guard byte < 0x80, byte != UInt8(ascii: "["), allowingDash || byte != UInt8(ascii: "-") else { return nil }
            let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            lowercased.append(lower)
            if lower != UInt8(ascii: "_"), lower != UInt8(ascii: "-") { normalized.append(lower) }
        }
        return (lowercased, normalized)
    }
}

/// Up to 32 ASCII bytes in four words: a name as a hashable value, built without allocating.
struct PackedName: Hashable, Sendable {
    static let capacity = 32

    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private(set) var count = 0

    init() {}

    /// The name, if it is ASCII and short enough.
    init?(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            guard byte < 0x80, count < Self.capacity else { return nil }
            append(byte)
        }
    }

    mutating func append(_ byte: UInt8) {
        let shift = UInt64((count % 8) * 8)
        switch count / 8 {
        case 0: words.0 |= UInt64(byte) << shift
        case 1: words.1 |= UInt64(byte) << shift
        case 2: words.2 |= UInt64(byte) << shift
        default: words.3 |= UInt64(byte) << shift
        }
        count += 1
    }

    func byte(at index: Int) -> UInt8 {
        let word =
            switch index / 8 {
            case 0: words.0
            case 1: words.1
            case 2: words.2
            default: words.3
            }
        return UInt8(truncatingIfNeeded: word >> UInt64((index % 8) * 8))
    }

    /// Whether `fragment` occurs in the name.
    func contains(_ fragment: [UInt8]) -> Bool {
        guard fragment.count <= count else { return false }
        if fragment.isEmpty { return true }
        for start in 0...(count - fragment.count) {
            var matches = true
            for offset in 0..<fragment.count where byte(at: start + offset) != fragment[offset] {
                matches = false
                break
            }
            if matches { return true }
        }
        return false
    }

    static func == (lhs: PackedName, rhs: PackedName) -> Bool {
        lhs.count == rhs.count && lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1
            && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
