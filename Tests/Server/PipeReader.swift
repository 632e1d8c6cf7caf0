import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Blocking reads of a pipe on a dedicated thread, so nothing ever blocks the cooperative
/// thread pool.
public enum PipeReader {
    /// The lines `handle` delivers until end-of-file, each without its newline, read on a
    /// thread of its own (named `name`): what a test or benchmark reads from a child process's
    /// standard output, as the child writes it.
    public static func lines(of handle: FileHandle, name: String) -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let thread = Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[pending.index(after: newline)...])
                }
            }
            continuation.finish()
        }
        thread.name = name
        thread.start()
        return lines
    }

    /// Starts a thread that reads `handle` until end-of-file, calling `onChunk` with each
    /// chunk as it arrives and `onEnd` once at the end. The thread keeps `handle` (and so
    /// its file descriptor) alive until then.
    static func start(
        name: String,
        reading handle: FileHandle,
        onChunk: @escaping @Sendable (Data) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) {
        let thread = Thread {
            let descriptor = handle.fileDescriptor
            let capacity = 64 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            defer {
                buffer.deallocate()
                onEnd()
            }
            while true {
                let count = systemRead(descriptor, buffer, capacity)
                if count > 0 {
                    onChunk(Data(bytes: buffer, count: count))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return  // 0: end-of-file; < 0: the pipe is unusable
                }
            }
        }
        thread.name = name
        thread.start()
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
            Musl.read(descriptor, buffer, count)
        #else
            Darwin.read(descriptor, buffer, count)
        #endif
    }
}
