import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The two small files beside a shared token through which processes take turns:
///
/// - `<name>.lock` holds the ``LockRecord`` (the generation of the last write and the lease).
///   Its `flock` is the *guard*, held for the few microseconds it takes to change the record
///   or to write the token, so every write is one atomic step.
/// - `<name>.lease` is empty. The lease holder keeps its `flock` for the whole renewal: the
///   operating system frees it when the holder's process dies (`kill -9`, a crash), so the
///   next process takes the lease at once instead of waiting for it to expire.
///
/// `flock` locks belong to an open file, so two instances in one process exclude each other
/// as two processes do; tasks sharing one instance queue in ``LeaseQueue`` first. Neither
/// file is ever deleted by Courier.
final class LockFile: Sendable {
    let url: URL
    let leaseURL: URL

    /// The lock file's descriptor (`-1`: not open yet). Its lock is also held around every
    /// guarded section, so that two tasks of this process (which share the open file, and so
    /// its `flock`) never overlap.
    private let lockFile = Locked<Int32>(-1)
    /// The lease file's descriptor (`-1`: not open yet).
    private let leaseFile = Locked<Int32>(-1)
    /// The lock-free generation read's own copy of the lock file's descriptor, so it never
    /// waits behind a guarded section (`-1`: not open yet).
    private let readDescriptor = Locked<Int32>(-1)

    /// How long a guarded section waits for another process's guard: it is held for
    /// microseconds, so this long means a process stopped in the middle of a write.
    static let guardTimeout: TimeInterval = 5

    /// Whether the lock file's directory exists (a store that was never written has none).
    var directoryExists: Bool { POSIX.isDirectory(url.deletingLastPathComponent().path) }

    init(url: URL) {
        self.url = url
        self.leaseURL = url.deletingPathExtension().appendingPathExtension("lease")
    }

    deinit {
        for box in [lockFile, leaseFile] {
            let descriptor = box.withValue { $0 }
            if descriptor >= 0 { POSIX.close(descriptor) }
        }
        let read = readDescriptor.withValue { $0 }
        if read >= 0 { POSIX.close(read) }
    }

    // MARK: The generation, without the lock

    /// The generation and change of the last write, read without any lock: one `pread` of 24
    /// bytes into the stack, no allocation. A lock file that does not exist yet reads as
    /// generation 0.
    ///
    /// Before every signed request, so it costs what the system call costs and little more:
    /// the descriptor is opened once, without updating the access time where the system
    /// allows it. (A mapping of the record would cost no system call, but a lock file that
    /// another process truncates to nothing turns the next read of the mapping into `SIGBUS`,
    /// a crash that no check before the read can rule out; a `pread` of a truncated file reads
    /// nothing, which reads as generation 0.)
    ///
    /// The lock file is the one this instance opened first: one that was deleted and created
    /// again is seen at the next guarded section (a write or a lease).
    func generation() -> (generation: UInt64, change: TokenChange?) {
        let descriptor = readDescriptor.withValue { descriptor -> Int32 in
            if descriptor < 0 {
                // Never created here: reading changes nothing on disk. A missing lock file
                // means no coordinated session wrote yet; it is tried again next time.
                // Non-blocking, so that a FIFO put in its place cannot hang a request.
                let flags = O_RDONLY | O_NONBLOCK
                descriptor = POSIX.open(url.path, flags | POSIX.noAccessTime)
                // Refused only to a process that does not own the file (EPERM).
                if descriptor < 0, errno == EPERM, POSIX.noAccessTime != 0 {
                    descriptor = POSIX.open(url.path, flags)
                }
            }
            return descriptor
        }
        guard descriptor >= 0 else { return (0, nil) }
        // A read that overlaps a write can see half of it: the checksum tells, and the next
        // read sees all of it.
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        for _ in 0..<8 {
            let count = withUnsafeMutableBytes(of: &words) { buffer in
                POSIX.read(descriptor, into: buffer, at: LockRecord.generationOffset)
            }
            guard count == LockRecord.generationSize else { return (0, nil) }
            let read = LockRecord.generation(
                UInt64(littleEndian: words.0), change: UInt64(littleEndian: words.1),
                check: UInt64(littleEndian: words.2))
            if let (generation, change) = read { return (generation, change) }
        }
        // Not a record Courier wrote: the next guarded write replaces it.
        return (0, nil)
    }

    // MARK: Guarded sections

    /// Runs `body` holding the guard, with the record as it is on disk; writes the record
    /// back if `body` changed it.
    ///
    /// - Throws: ``TokenStoreError/lockFailed(_:)`` when the lock file cannot be opened or
    ///   locked (another process held the guard for ``guardTimeout``), or what `body` throws.
    func withGuard<Result>(_ body: (inout LockRecord, GuardedFiles) throws -> Result) throws -> Result {
        try lockFile.withValue { descriptor in
            var lock = try openLockFile(&descriptor)
            try takeGuard(lock)
            // Replaced between the open and the lock: lock the file every process now opens.
            while POSIX.identity(atPath: url.path) != POSIX.identity(of: lock) {
                POSIX.unlock(lock)
                lock = try openLockFile(&descriptor)
                try takeGuard(lock)
            }
            defer { POSIX.unlock(lock) }
            let original = LockRecord(bytes: POSIX.read(lock, count: LockRecord.size, at: 0) ?? [])
            var record = original
            let result = try body(&record, GuardedFiles(file: self))
            if record != original {
                guard POSIX.write(lock, record.bytes, at: 0) else {
                    throw TokenStoreError.lockFailed("cannot write the lock file \(url.path): \(POSIX.lastError)")
                }
            }
            return result
        }
    }

    /// What a guarded section may do with the lease file.
    struct GuardedFiles {
        fileprivate let file: LockFile

        /// Takes the lease file's lock if no live process holds it.
        func tryLockLease() throws -> Bool {
            let descriptor = try file.leaseDescriptor()
            do {
                return try POSIX.tryLock(descriptor)
            } catch {
                throw TokenStoreError.lockFailed("cannot lock \(file.leaseURL.path): \(error.reason)")
            }
        }

        /// Frees the lease file's lock.
        func unlockLease() {
            file.unlockLeaseFile()
        }
    }

    /// The lock file's descriptor, opened (and the directory created) on first use, and
    /// opened again when the path no longer names the file it has open (someone replaced it):
    /// every process must lock the same file.
    private func openLockFile(_ descriptor: inout Int32) throws -> Int32 {
        if descriptor >= 0, POSIX.identity(atPath: url.path) == POSIX.identity(of: descriptor) {
            return descriptor
        }
        if descriptor >= 0 { POSIX.close(descriptor) }
        descriptor = -1
        do {
            try TokenFileStorage.createDirectory(url.deletingLastPathComponent())
        } catch TokenStoreError.writeFailed(let reason) {
            throw TokenStoreError.lockFailed(reason)
        }
        let opened = POSIX.open(url.path, O_RDWR | O_CREAT)
        guard opened >= 0 else {
            throw TokenStoreError.lockFailed("cannot open the lock file \(url.path): \(POSIX.lastError)")
        }
        descriptor = opened
        return opened
    }

    /// Takes the guard: at once when it is free (almost always), else polling until
    /// ``guardTimeout``.
    private func takeGuard(_ descriptor: Int32) throws {
        var pause: useconds_t = 100
        // Monotonic: a wall clock that jumps must not cut the wait short, nor make it endless.
        let deadline = ContinuousClock.now + .seconds(Self.guardTimeout)
        while true {
            do {
                if try POSIX.tryLock(descriptor) { return }
            } catch {
                throw TokenStoreError.lockFailed("cannot lock \(url.path): \(error.reason)")
            }
            guard ContinuousClock.now < deadline else {
                throw TokenStoreError.lockFailed(
                    "another process kept \(url.path) locked for \(Int(Self.guardTimeout)) seconds")
            }
            usleep(pause)
            pause = min(pause * 2, 5_000)
        }
    }

    /// The lease file's descriptor, opened on first use (only ever from a guarded section).
    private func leaseDescriptor() throws -> Int32 {
        // Its own box: the guarded section already holds `lockFile`'s.
        try leaseFile.withValue { descriptor in
            if descriptor >= 0, POSIX.identity(atPath: leaseURL.path) == POSIX.identity(of: descriptor) {
                return descriptor
            }
            if descriptor >= 0 { POSIX.close(descriptor) }
            descriptor = POSIX.open(leaseURL.path, O_RDWR | O_CREAT)
            guard descriptor >= 0 else {
                throw TokenStoreError.lockFailed("cannot open \(leaseURL.path): \(POSIX.lastError)")
            }
            return descriptor
        }
    }

    func unlockLeaseFile() {
        leaseFile.withValue { descriptor in
            if descriptor >= 0 { POSIX.unlock(descriptor) }
        }
    }
}
