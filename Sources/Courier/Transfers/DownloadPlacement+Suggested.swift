import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DownloadPlacement {
    /// A destination in `directory`, named by the server's suggestion made safe
    /// (`HTTPURLResponse.safeSuggestedFilename`), or `fallbackName` when the server
    /// suggests nothing usable.
    ///
    /// The file always lands directly in `directory`, whatever the server sends in
    /// `Content-Disposition`. Without ``DownloadOptions/removePreviousFile`` (the default), a
    /// file of the same name already there fails the download and is kept; with it, the
    /// server chooses which file of `directory` is replaced.
    ///
    /// ```swift
    /// let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("downloads")
    /// let target = API.report(id: 7, destination: DownloadPlacement.suggestedDestination(in: downloads))
    /// ```
    ///
    /// - Parameters:
    ///   - directory: the folder the file goes in.
    ///   - fallbackName: the name to use when the server suggests none; it is made safe too,
    ///     and `download` is used if nothing of it is left.
    ///   - options: what to do at the destination; by default the folder is created if needed.
    public static func suggestedDestination(
        in directory: URL, fallbackName: String = "download",
        options: DownloadOptions = [.createIntermediateDirectories]
    ) -> DownloadDestination {
        let fallback = HTTPURLResponse.safeFilename(fallbackName) ?? "download"
        return { _, response in
            (directory.appendingPathComponent(response.safeSuggestedFilename ?? fallback), options)
        }
    }
}
