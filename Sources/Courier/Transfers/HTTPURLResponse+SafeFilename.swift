import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPURLResponse {
    /// The server's suggested file name (from `Content-Disposition`, else the URL), made safe
    /// to append to a folder of yours; `nil` when nothing usable is left.
    ///
    /// `suggestedFilename` is whatever the server sent: on Linux `..` or an empty string come
    /// back unchanged, and appending either to a folder names the folder itself (or its
    /// parent). This name is always a single, visible, non-empty path component:
    ///
    /// - only the part after the last `/` or `\` is kept (`../../etc/passwd` → `passwd`);
    /// - control characters (`U+0000`–`U+001F`, `U+007F`–`U+009F`) and the Unicode bidirectional
    ///   controls that can disguise an extension are removed;
    /// - leading dots and surrounding spaces are removed, so `.`, `..` and hidden names such as
    ///   `.bashrc` cannot be produced;
    /// - it is at most 255 bytes of UTF-8 (the usual file-name limit), keeping the extension.
    ///
    /// ```swift
    /// let destination: DownloadDestination = { _, response in
    ///     let name = response.safeSuggestedFilename ?? "download"
    ///     return (downloads.appendingPathComponent(name), [.createIntermediateDirectories])
    /// }
    /// ```
    public var safeSuggestedFilename: String? {
        suggestedFilename.flatMap(Self.safeFilename)
    }

    /// `name` reduced to a safe single file name, or `nil`; see ``safeSuggestedFilename``.
    static func safeFilename(_ name: String) -> String? {
        let lastComponent = name.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }.last ?? ""
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: Substring(lastComponent).unicodeScalars.filter { !isUnsafe($0) })
        var cleaned = Substring(String(scalars))
        while let first = cleaned.first, first == "." || first.isWhitespace { cleaned.removeFirst() }
        while let last = cleaned.last, last.isWhitespace { cleaned.removeLast() }
        guard !cleaned.isEmpty else { return nil }
        return truncated(String(cleaned), toUTF8Bytes: 255)
    }

    /// Control characters and the bidirectional formatting characters (which can show
    /// `invoice‮fdp.exe` as `invoiceexe.pdf`).
    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }

    /// `name` cut to at most `limit` bytes of UTF-8 on a character boundary, keeping a short
    /// extension (up to 16 bytes) at the end.
    private static func truncated(_ name: String, toUTF8Bytes limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        var stem = Substring(name)
        var suffix = Substring("")
        if let dot = name.lastIndex(of: "."), name.utf8[dot...].count <= 16 {
            stem = name[..<dot]
            suffix = name[dot...]
        }
        let budget = limit - suffix.utf8.count
        var kept = ""
        for character in stem {
            if kept.utf8.count + character.utf8.count > budget { break }
            kept.append(character)
        }
        return kept + suffix
    }
}
