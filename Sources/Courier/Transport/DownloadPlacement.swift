import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Moves a finished download to where its ``DownloadDestination`` says.
enum DownloadPlacement {
    static func move(_ temporaryURL: URL, response: HTTPURLResponse, destination: DownloadDestination)
        throws -> URL
    {
        let (target, options) = destination(temporaryURL, response)
        let fileManager = FileManager.default
        if options.contains(.createIntermediateDirectories) {
            try fileManager.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        if options.contains(.removePreviousFile), fileManager.fileExists(atPath: target.path) {
            try fileManager.removeItem(at: target)
        }
        try fileManager.moveItem(at: temporaryURL, to: target)
        return target
    }
}
