import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moves a finished download to where its ``DownloadDestination`` says.
enum DownloadPlacement {
    /// Asks `destination` where the file at `temporaryURL` goes and moves it there.
    ///
    /// - ``DownloadOptions/createIntermediateDirectories`` creates the missing parent
    ///   directories; without it, a missing parent fails the download.
    /// - ``DownloadOptions/removePreviousFile`` replaces a file already there; without it,
    ///   an existing file fails the download and is left as it was.
    ///
    /// - Returns: the destination.
    /// - Throws: the file system's error. The temporary file is removed on every failure,
    ///   so a failed placement leaves nothing behind.
    static func move(_ temporaryURL: URL, response: HTTPURLResponse, destination: DownloadDestination)
        throws -> URL
    {
        let (target, options) = destination(temporaryURL, response)
        if target.standardizedFileURL == temporaryURL.standardizedFileURL {
            return target
        }
        let fileManager = FileManager.default
        do {
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
}
