import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few system calls the token files need, with the operating system's reason for a
/// failure in words (`strerror`), so a ``TokenStoreError`` can say why.
enum POSIX {
    /// The last error's description: `Is a directory`, `Permission denied`.
    static var lastError: String { String(cString: strerror(errno)) }

    /// `open(2)`, retried on `EINTR`; always close-on-exec, so a child process (a helper
    /// the app starts) never inherits, and so never holds, a lock.
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o600) -> Int32 {
        while true {
            let descriptor = systemOpen(path, flags | O_CLOEXEC, mode)
            if descriptor >= 0 || errno != EINTR { return descriptor }
        }
    }

    /// Reads up to `count` bytes at `offset`; `nil` on an error.
    static func read(_ descriptor: Int32, count: Int, at offset: off_t) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { buffer -> Int in
            while true {
                let result = pread(descriptor, buffer.baseAddress, count, offset)
                if result >= 0 || errno != EINTR { return result }
            }
        }
        guard read >= 0 else { return nil }
        return Array(bytes.prefix(read))
    }

    /// Reads up to `buffer.count` bytes at `offset` into `buffer`, with no allocation: the
    /// number of bytes read, or `nil` on an error.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: off_t) -> Int? {
        while true {
            let result = pread(descriptor, buffer.baseAddress, buffer.count, offset)
            if result >= 0 { return result }
            if errno != EINTR { return nil }
        }
    }

    /// `O_NOATIME` where the system has it (Linux), else 0: a read that does not update the
    /// file's access time skips the inode's time check, about a sixth of a small `pread`. Only
    /// the file's owner may use it (`EPERM` otherwise), so an open with it falls back to one
    /// without.
    static var noAccessTime: Int32 {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
            // Glibc exports the macro to Swift only with _GNU_SOURCE; this is the generic
            // value, the one these architectures use.
            0o1_000_000
        #else
            0
        #endif
    }

    /// Writes all of `bytes` at `offset`; whether it did.
    static func write(_ descriptor: Int32, _ bytes: [UInt8], at offset: off_t) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = pwrite(descriptor, buffer.baseAddress! + done, buffer.count - done, offset + off_t(done))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                done += written
            }
            return true
        }
    }

    /// Writes all of `data` at the descriptor's position; whether it did.
    static func write(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + done, buffer.count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                done += written
            }
            return true
        }
    }

    /// Reads the whole file open at `descriptor`.
    static func readAll(_ descriptor: Int32) -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// `flock(2)` with `LOCK_NB`: `true` when taken, `false` when another open file holds it.
    /// - Throws: the reason, for any other error.
    static func tryLock(_ descriptor: Int32) throws(LockFailure) -> Bool {
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            switch errno {
            case EINTR: continue
            case EWOULDBLOCK: return false
            default: throw LockFailure(reason: lastError)
            }
        }
    }

    /// Releases a lock taken with ``tryLock(_:)``.
    static func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }

    /// `close(2)`.
    static func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }

    /// A failed `flock(2)`, with the system's reason.
    struct LockFailure: Error {
        let reason: String
    }

    /// The (device, inode) of an open file, to tell whether a path still names it.
    static func identity(of descriptor: Int32) -> FileIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileIdentity(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
    }

    /// The (device, inode) the path names now, or `nil` when it names nothing.
    static func identity(atPath path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
    }

    /// Whether the path names a directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    // The C functions under other names, so that the wrappers above can be named after them.
    private static func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #elseif canImport(Musl)
            Musl.open(path, flags, mode)
        #else
            Darwin.open(path, flags, mode)
        #endif
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
            Musl.read(descriptor, buffer, count)
        #else
            Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, buffer, count)
        #elseif canImport(Musl)
            Musl.write(descriptor, buffer, count)
        #else
            Darwin.write(descriptor, buffer, count)
        #endif
    }

    private static func systemClose(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #elseif canImport(Musl)
            Musl.close(descriptor)
        #else
            Darwin.close(descriptor)
        #endif
    }
}
