import Foundation

// Not `CourierVersion`: Swift's symbol graph (and so DocC) leaves out a type named after its
// module followed by "Version", as it does the C `<Module>VersionNumber` of a framework.

/// The version of Courier you are building with: the one `CHANGELOG.md` describes at its top
/// and the one to pin, `.package(url: …, from: "1.7.0")`.
///
/// The default `User-Agent` of ``URLSessionTransport`` and of `CurlTransport` names it
/// (``product``), so a server's logs tell which Courier sent a request.
///
/// ```swift
/// print("Courier \(CourierRelease.version)")  // Courier 1.7.0
/// ```
public enum CourierRelease {
    /// The version, as semantic versioning spells it: `1.7.0`.
    public static let version = "1.7.0"

    /// The product token for a `User-Agent`: `Courier/1.7.0`.
    public static let product = "Courier/\(version)"

    /// A default `User-Agent` as Alamofire builds one: the app's name and version, the
    /// operating system, then Courier and the transport, for example
    /// `MyService/2.1 (Linux 6.1.0) Courier/1.7.0 URLSessionTransport`.
    ///
    /// The app's name is the process's; its version is the main bundle's
    /// `CFBundleShortVersionString` when there is one (an executable on Linux has none, and
    /// then the name stands alone). Only visible ASCII is kept.
    ///
    /// - Parameter client: what follows ``product``: the transport's name and, where it has
    ///   one, its library's version.
    package static func userAgent(client: String) -> String {
        let process = ProcessInfo.processInfo
        let name = process.processName.isEmpty ? "Courier-client" : process.processName
        let version = Bundle.main.infoDictionary?["CFBundleShortVersionString"] as? String
        let app = version.map { "\(name)/\($0)" } ?? name
        let os = process.operatingSystemVersion
        #if os(Linux)
            let system = "Linux \(os.majorVersion).\(os.minorVersion).\(os.patchVersion)"
        #else
            let system = "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)"
        #endif
        let line = "\(app) (\(system)) \(product) \(client)"
        return String(String.UnicodeScalarView(line.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }))
    }
}
