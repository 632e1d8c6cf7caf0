import Foundation

/// Where Courier keeps the files of transfers in progress: multipart bodies written to disk
/// before they are uploaded, and downloads not yet moved to their destination.
///
/// Every such file is named `courier-<kind>-<UUID>`, is readable by the user only, and is
/// removed when its request ends, whether it succeeds, fails or is cancelled.
///
/// A transport of your own (such as `CourierCurl`'s) that writes downloads to disk puts its
/// temporary files in ``current`` and names them the same way.
public enum TransferDirectory {
    /// A directory to use instead of the system's temporary directory, for the current task
    /// and the tasks it creates (tests use one of their own, so they can check that nothing
    /// is left behind while other tests run).
    @TaskLocal static var override: URL?

    /// The directory for the transfer files of the current task: the system's temporary
    /// directory, unless the task runs with a directory of its own (as Courier's tests do).
    public static var current: URL {
        override ?? FileManager.default.temporaryDirectory
    }

    /// Creates an empty file `<prefix>-<UUID>` in `directory`, readable and writable by the
    /// user only, and opens it for writing.
    ///
    /// - Throws: ``FileCreationFailure``.
    static func createFile(prefix: String, in directory: URL) throws(FileCreationFailure) -> (URL, FileHandle) {
        let url = directory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: url.path)
        else {
            throw FileCreationFailure(fileNamePrefix: prefix)
        }
        return (url, handle)
    }
}

extension TransferDirectory {
    /// A temporary file for a transfer — a multipart body written to disk before its upload,
    /// or a download before it reaches its destination — could not be created in
    /// ``TransferDirectory/current`` (the directory is missing, full or not writable).
    ///
    /// It reaches you as ``CourierError/underlying(_:_:)``.
    public struct FileCreationFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The start of the file's name: `courier-multipart` or `courier-download`.
        public let fileNamePrefix: String

        /// What went wrong.
        public var description: String {
            "cannot create the temporary file \(fileNamePrefix)-… in the transfer directory"
        }
    }
}
