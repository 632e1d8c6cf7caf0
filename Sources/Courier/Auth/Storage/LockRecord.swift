import Foundation

/// The 72 bytes at the start of a lock file: the generation of the last write and the lease.
///
/// ```
/// 0   "CourierL"            magic
/// 8   UInt32 layout (1), UInt32 reserved
/// 16  UInt64 generation     ┐ read without the lock before every signed request,
/// 24  UInt64 change         │ so a checksum tells a torn read from a real one
/// 32  UInt64 check          ┘
/// 40  16 bytes owner        the lease holder (all zero: free)
/// 56  Int64 expiry          milliseconds since 1970 (wall clock, shared by processes)
/// 64  UInt64 flags          bit 0: the holder also holds the lease file's lock
/// ```
///
/// Little-endian. A later layout only ever adds fields after these, so every version reads
/// the generation where the first one wrote it.
struct LockRecord: Equatable {
    static let size = 72
    static let generationOffset: off_t = 16
    static let generationSize = 24
    private static let magic = Array("CourierL".utf8)
    private static let layout: UInt32 = 1

    var generation: UInt64 = 0
    var change: TokenChange?
    /// The lease holder; `nil` when the lease is free.
    var owner: UUID?
    /// When the lease ends if its holder never releases it (ms since 1970).
    var expiry: Int64 = 0
    /// Whether the holder also holds the lock of the lease file, which the operating system
    /// frees when the holder's process dies.
    var backedByLock = false

    init() {}

    /// Reads a record; an empty, short or foreign file reads as a fresh record.
    init(bytes: [UInt8]) {
        guard bytes.count >= Self.size, Array(bytes[0..<8]) == Self.magic else { return }
        if let (generation, change) = Self.generation(from: Array(bytes[16..<40])) {
            self.generation = generation
            self.change = change
        }
        let ownerBytes = Array(bytes[40..<56])
        if ownerBytes.contains(where: { $0 != 0 }) {
            owner = ownerBytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        expiry = Int64(bitPattern: Self.integer(bytes, at: 56))
        backedByLock = Self.integer(bytes, at: 64) & 1 == 1
    }

    var bytes: [UInt8] {
        var bytes = Self.magic
        bytes += Self.encode(UInt64(Self.layout))
        bytes += Self.encode(generation)
        let changeValue = UInt64(change?.rawValue ?? 0)
        bytes += Self.encode(changeValue)
        bytes += Self.encode(Self.check(generation, changeValue))
        if let owner {
            bytes += withUnsafeBytes(of: owner.uuid) { Array($0) }
        } else {
            bytes += [UInt8](repeating: 0, count: 16)
        }
        bytes += Self.encode(UInt64(bitPattern: expiry))
        bytes += Self.encode(backedByLock ? 1 : 0)
        return bytes
    }

    /// The generation and change in the 24 bytes at ``generationOffset``, or `nil` when the
    /// checksum does not match (a read that overlapped a write, or no record yet).
    static func generation(from bytes: [UInt8]) -> (UInt64, TokenChange?)? {
        guard bytes.count >= generationSize else { return nil }
        let generation = integer(bytes, at: 0)
        let change = integer(bytes, at: 8)
        guard integer(bytes, at: 16) == check(generation, change) else { return nil }
        return (generation, UInt8(exactly: change).flatMap(TokenChange.init(rawValue:)))
    }

    private static func check(_ generation: UInt64, _ change: UInt64) -> UInt64 {
        ~(generation ^ (change &* 0x9E37_79B9_7F4A_7C15) ^ 0x436F_7572_6965_724C)
    }

    private static func encode(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func integer(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }
}
