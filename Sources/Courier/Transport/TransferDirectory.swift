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
    static func createFile(prefix: String, in directory: URL) throws -> (URL, FileHandle) {
        let url = directory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: url.path)
        else {
            throw MultipartEncodingFailure.cannotCreateTemporaryFile
        }
        return (url, handle)
    }
}
