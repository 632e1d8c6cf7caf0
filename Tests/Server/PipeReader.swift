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
enum PipeReader {
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
