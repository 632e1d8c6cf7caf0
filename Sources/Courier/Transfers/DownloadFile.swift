import Foundation

/// A download being written to its temporary file in ``TransferDirectory``, as the bytes
/// arrive; ``DownloadPlacement`` moves it to its destination once the transfer is complete.
///
/// Not thread-safe: the transport's delegate uses it under its lock only.
final class DownloadFile {
    /// The temporary file.
    let url: URL
    private let handle: FileHandle
    private var isClosed = false

    /// Creates an empty `courier-download-<UUID>` file in `directory`.
    init(in directory: URL) throws {
        (url, handle) = try TransferDirectory.createFile(prefix: "courier-download", in: directory)
    }

    /// Appends `data`.
    func write(_ data: Data) throws {
        try handle.write(contentsOf: data)
    }

    /// Closes the file, which is complete.
    func finish() throws {
        guard !isClosed else { return }
        isClosed = true
        try handle.close()
    }

    /// Closes and removes the file: the download failed or was cancelled.
    func discard() {
        if !isClosed {
            isClosed = true
            try? handle.close()
        }
        try? FileManager.default.removeItem(at: url)
    }
}
