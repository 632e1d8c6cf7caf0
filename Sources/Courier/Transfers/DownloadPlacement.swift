import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Puts a finished download where its ``DownloadDestination`` says, honouring its
/// ``DownloadOptions``.
///
/// ``URLSessionTransport`` and the stub path use it; so can a custom ``HTTPTransport``
/// (a test double, say) that must treat download destinations the way the real transport
/// does:
///
/// ```swift
/// let fileURL = try DownloadPlacement.place(body, response: httpResponse, destination: destination)
/// return Response(statusCode: 200, data: Data(), request: request.urlRequest, response: httpResponse, fileURL: fileURL)
/// ```
public enum DownloadPlacement {
    /// Asks `destination` where the file at `temporaryURL` goes and moves it there.
    ///
    /// - ``DownloadOptions/createIntermediateDirectories`` creates the missing parent
    ///   directories; without it, a missing parent fails the download.
    /// - ``DownloadOptions/removePreviousFile`` replaces a file already there; without it,
    ///   an existing file fails the download and is left as it was.
    /// - A destination that is a directory, or resolves to one (through a symbolic link,
    ///   `..`, `.` or an empty last component), fails the download with
    ///   ``DownloadPlacementError/destinationIsDirectory(_:)`` before anything is created or
    ///   removed: a download never replaces a directory, whatever the options say.
    ///
    /// - Returns: the destination.
    /// - Throws: ``DownloadPlacementError`` or the file system's error. The temporary file is
    ///   removed on every failure, so a failed placement leaves nothing behind.
    public static func move(_ temporaryURL: URL, response: HTTPURLResponse, destination: DownloadDestination)
        throws -> URL
    {
        let (target, options) = destination(temporaryURL, response)
        if target.standardizedFileURL == temporaryURL.standardizedFileURL {
            return target
        }
        let fileManager = FileManager.default
        do {
            if isOrResolvesToDirectory(target) {
                throw DownloadPlacementError.destinationIsDirectory(target)
            }
            if options.contains(.createIntermediateDirectories) {
                try fileManager.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            if options.contains(.removePreviousFile), fileManager.fileExists(atPath: target.path) {
                try fileManager.removeItem(at: target)
            }
            try fileManager.moveItem(at: temporaryURL, to: target)
            return target
        } catch {
            try? fileManager.removeItem(at: temporaryURL)
            throw error
        }
    }

    /// Whether `url` names a directory: an existing one (symbolic links followed), or a path
    /// whose last component can only name one (`.`, `..`, empty, a trailing `/`).
    static func isOrResolvesToDirectory(_ url: URL) -> Bool {
        let path = url.path
        let lastComponent = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        if path.isEmpty || lastComponent.isEmpty || lastComponent == "." || lastComponent == ".." {
            return true
        }
        var isDirectory: ObjCBool = false
        let resolved = url.standardizedFileURL.resolvingSymlinksInPath().path
        return FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory) && isDirectory.boolValue
            || FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Writes `data` to a temporary file and moves it to where `destination` says, as
    /// ``move(_:response:destination:)`` does: for a body that is already in memory.
    ///
    /// - Returns: the destination.
    /// - Throws: the file system's error; nothing is left behind on failure.
    public static func place(_ data: Data, response: HTTPURLResponse, destination: DownloadDestination) throws
        -> URL
    {
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-placed-\(UUID().uuidString)")
        do {
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        return try move(temporary, response: response, destination: destination)
    }
}
