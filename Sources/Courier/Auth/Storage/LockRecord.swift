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
/// 56  Int64 expiry          milliseconds since 1970 (wall clock): what layout 1 compared,
///                           still written for it, and read only from a layout-1 record
/// 64  UInt64 flags          bit 0: the holder also holds the lease file's lock
/// 72  16 bytes boot id      layout 2: the boot whose ``LeaseClock`` measured the expiry
/// 88  Int64 boot expiry     layout 2: nanoseconds since that boot (``LeaseClock``)
/// ```
///
/// Little-endian. A later layout only ever adds fields after these, so every version reads
/// the generation where the first one wrote it. A layout-1 writer (an older Courier) writes
/// the first 72 bytes and layout 1, so the fields after them are ignored until the next
/// layout-2 write.
struct LockRecord: Equatable {
    static let size = 96
    /// The size of a layout-1 record, which is read as it was.
    static let firstLayoutSize = 72
    static let generationOffset: off_t = 16
    static let generationSize = 24
    private static let magic = Array("CourierL".utf8)
    private static let layout: UInt32 = 2

    var generation: UInt64 = 0
    var change: TokenChange?
    /// The lease holder; `nil` when the lease is free.
    var owner: UUID?
    /// When the lease ends if its holder never releases it (ms since 1970).
    var expiry: Int64 = 0
    /// Whether the holder also holds the lock of the lease file, which the operating system
    /// frees when the holder's process dies.
    var backedByLock = false
    /// The boot whose ``LeaseClock`` measured ``bootExpiry``; `nil` in a layout-1 record (or
    /// where the system does not tell its boot): then ``expiry`` decides.
    var bootID: UUID?
    /// When the lease ends on ``LeaseClock`` (ns since boot ``bootID``).
    var bootExpiry: Int64 = 0

    init() {}

    /// Whether the lease has expired: on the shared, monotonic ``LeaseClock`` when the record
    /// says which boot measured it (a lease from another boot has expired), else on the wall
    /// clock as layout 1 did.
    func isExpired(wallMilliseconds: Int64, boot: Int64 = LeaseClock.now(), bootID current: UUID? = LeaseClock.bootID)
        -> Bool
    {
        if let bootID, let current {
            return bootID != current || bootExpiry <= boot
        }
        return expiry <= wallMilliseconds
    }

    /// Sets the lease to end `duration` seconds from now, on both clocks.
    mutating func setExpiry(
        after duration: TimeInterval, wallMilliseconds: Int64, boot: Int64 = LeaseClock.now(),
        bootID current: UUID? = LeaseClock.bootID
    ) {
        let nanoseconds = Int64(clamping: Delay.nanoseconds(duration))
        expiry = wallMilliseconds &+ nanoseconds / 1_000_000
        bootID = current
        bootExpiry = boot &+ nanoseconds
    }

    /// Reads a record; an empty, short or foreign file reads as a fresh record.
    init(bytes: [UInt8]) {
        guard bytes.count >= Self.firstLayoutSize, Array(bytes[0..<8]) == Self.magic else { return }
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
        let layout = Self.integer(bytes, at: 8) & 0xFFFF_FFFF
        guard layout >= 2, bytes.count >= 96 else { return }
        let bootBytes = Array(bytes[72..<88])
        if bootBytes.contains(where: { $0 != 0 }) {
            bootID = bootBytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        bootExpiry = Int64(bitPattern: Self.integer(bytes, at: 88))
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
        if let bootID {
            bytes += withUnsafeBytes(of: bootID.uuid) { Array($0) }
        } else {
            bytes += [UInt8](repeating: 0, count: 16)
        }
        bytes += Self.encode(UInt64(bitPattern: bootExpiry))
        return bytes
    }

    /// The generation and change in the 24 bytes at ``generationOffset``, or `nil` when the
    /// checksum does not match (a read that overlapped a write, or no record yet).
    static func generation(from bytes: [UInt8]) -> (UInt64, TokenChange?)? {
        guard bytes.count >= generationSize else { return nil }
        return generation(integer(bytes, at: 0), change: integer(bytes, at: 8), check: integer(bytes, at: 16))
    }

    /// The same from the three words at ``generationOffset``, already in host order.
    static func generation(_ generation: UInt64, change: UInt64, check: UInt64) -> (UInt64, TokenChange?)? {
        guard check == Self.check(generation, change) else { return nil }
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
