// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Foundation

extension CurlTransport {
    /// The `User-Agent` a request carries when neither it nor the
    /// ``Configuration/userAgent`` says otherwise: the app's name and version, the operating
    /// system, and the client stack, as Alamofire builds it:
    /// `MyService/1.4 (Linux 6.1.0) Courier CurlTransport libcurl/7.88.1`.
    ///
    /// The app's name is the process's; its version is the main bundle's
    /// `CFBundleShortVersionString` when there is one (an executable on Linux has none,
    /// and then the name stands alone).
    public static let defaultUserAgent: String = {
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
        let line = "\(app) (\(system)) Courier CurlTransport libcurl/\(CurlVersion.current)"
        // Only visible ASCII and spaces: a process name could hold anything.
        return String(String.UnicodeScalarView(line.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }))
    }()
}

/// The version of the libcurl the process runs with (not the headers it was built with).
enum CurlVersion {
    static let current: String = {
        guard let info = curl_version_info(courier_curlversion_now), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }()
}

#endif
