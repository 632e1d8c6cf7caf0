// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download being written, as it arrives, to `courier-download-<UUID>` in the transfer
/// directory (readable by the user only), the name Courier's own transport uses.
/// Used on the loop thread only.
final class CurlDownloadFile {
    let url: URL
    private var descriptor: Int32

    init(in directory: URL) throws {
        let url = directory.appendingPathComponent("courier-download-\(UUID().uuidString)")
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.posixError(errno, url) }
        self.url = url
        self.descriptor = descriptor
    }

    /// Appends `bytes`, all of them.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.posixError(errno, url)
            }
            offset += written
        }
    }

    /// Closes the complete file.
    func finish() throws {
        guard descriptor >= 0 else { return }
        let result = close(descriptor)
        descriptor = -1
        if result != 0 { throw Self.posixError(errno, url) }
    }

    /// Closes and removes the file: the download failed or was cancelled.
    func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(url.path)
    }

    static func posixError(_ code: Int32, _ url: URL) -> any Error {
        CocoaError(
            .fileWriteUnknown,
            userInfo: [
                NSFilePathErrorKey: url.path,
                NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code)),
            ])
    }
}

/// Reads an upload's body, from memory or from a file, for libcurl's read callback; it can
/// go back to a given offset when libcurl rewinds an idempotent request.
/// Used on the loop thread only.
final class CurlUploadReader {
    private enum Source {
        case data(Data)
        case file(Int32)
    }

    private var source: Source
    private var offset = 0

    init(_ body: CurlRequestPlan.BodySource) throws {
        switch body {
        case .none:
            source = .data(Data())
        case .data(let data):
            source = .data(data)
        case .file(let url, _):
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CurlTransportError.unreadableUploadFile(path: url.path) }
            source = .file(descriptor)
        }
    }

    /// Copies up to `buffer.count` next bytes into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch source {
        case .data(let data):
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            }
            offset += count
            return count
        case .file(let descriptor):
            while true {
                let count = Glibc.read(descriptor, buffer.baseAddress!, buffer.count)
                if count >= 0 { return count }
                if errno != EINTR {
                    throw CocoaError(
                        .fileReadUnknown,
                        userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(errno))])
                }
            }
        }
    }

    /// Goes to `position` from the start; `false` when it cannot.
    func seek(to position: Int64) -> Bool {
        switch source {
        case .data(let data):
            guard position >= 0, position <= Int64(data.count) else { return false }
            offset = Int(position)
            return true
        case .file(let descriptor):
            return lseek(descriptor, off_t(position), SEEK_SET) == off_t(position)
        }
    }

    func close() {
        if case .file(let descriptor) = source {
            _ = Glibc.close(descriptor)
            source = .data(Data())
        }
    }
}

/// Runs blocking file work (moving a finished download) on a thread of its own, off Swift
/// Concurrency's few cooperative threads and off the loop thread.
enum CurlFileWork {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "Courier.CurlTransport.files"
            thread.start()
        }
    }
}

#endif
