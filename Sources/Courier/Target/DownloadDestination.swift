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
/// ``DownloadOptions/createIntermediateDirectories``, a destination that is a directory),
/// the request fails and the temporary file is removed. An error status never reaches the
/// closure: its body comes back as the response's `data`.
///
/// ```swift
/// let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("downloads")
/// let destination: DownloadDestination = { _, response in
///     let name = response.safeSuggestedFilename ?? "download"
///     return (downloads.appendingPathComponent(name), [.createIntermediateDirectories])
/// }
/// ```
///
/// Never append the raw `suggestedFilename` to a folder: it is whatever the server sent in
/// `Content-Disposition`, and on Linux `..` or an empty name come back unchanged, which name
/// the folder itself or its parent. Use `HTTPURLResponse.safeSuggestedFilename`
/// or ``DownloadPlacement/suggestedDestination(in:fallbackName:options:)``. Whatever the
/// closure returns, a download never replaces a directory
/// (``DownloadPlacementError/destinationIsDirectory(_:)``), and
/// ``DownloadOptions/removePreviousFile`` lets the server's name choose which file of the
/// folder is replaced: leave it out when the name comes from the server.
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
    ///
    /// Only a file (or a symbolic link to one) is ever replaced: a destination that is a
    /// directory fails the download with ``DownloadPlacementError/destinationIsDirectory(_:)``.
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
}
