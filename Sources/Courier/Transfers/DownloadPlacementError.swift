import Foundation

/// Why a finished download could not be put where its ``DownloadDestination`` said.
///
/// The downloaded file is removed and nothing at the destination is changed.
public enum DownloadPlacementError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The destination is a directory, or resolves to one (through a symbolic link, `..`,
    /// `.` or an empty file name, as a server-chosen name can make it). A download never
    /// replaces a directory, even with ``DownloadOptions/removePreviousFile``.
    case destinationIsDirectory(URL)

    /// What went wrong, naming the destination.
    public var description: String {
        switch self {
        case .destinationIsDirectory(let url):
            "The download's destination \(url.path) is a directory; a download never replaces a directory, "
                + "so the file was not placed and the directory is unchanged."
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
