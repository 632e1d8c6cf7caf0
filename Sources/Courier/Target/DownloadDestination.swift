import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides where a downloaded file goes.
///
/// Called once a successful (2xx) download is complete, with its temporary file and the
/// server's response, on a background thread. Return the final location and how to treat
/// what is already there. When the file cannot be moved there (an existing file without
/// ``DownloadOptions/removePreviousFile``, a missing folder without
/// ``DownloadOptions/createIntermediateDirectories``), the request fails and the temporary
/// file is removed. An error status never reaches the closure: its body comes back as the
/// response's `data`.
///
/// ```swift
/// let destination: DownloadDestination = { _, response in
///     let url = FileManager.default.temporaryDirectory
///         .appendingPathComponent(response.suggestedFilename ?? "download")
///     return (url, [.removePreviousFile, .createIntermediateDirectories])
/// }
/// ```
public typealias DownloadDestination =
    @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse) -> (
        destinationURL: URL, options: DownloadOptions
    )

/// What to do at a download's destination before the file is moved there.
public struct DownloadOptions: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Create the destination's missing parent directories.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)

    /// Replace a file that is already at the destination (otherwise the download fails).
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
}
