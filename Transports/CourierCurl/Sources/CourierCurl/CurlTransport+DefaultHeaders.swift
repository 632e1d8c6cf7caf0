// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import Foundation

extension CurlTransport {
    /// The `User-Agent` a request carries when neither it nor the
    /// ``Configuration/userAgent`` says otherwise: the app's name and version, the operating
    /// system, and the client stack, as Alamofire builds it:
    /// `MyService/1.4 (Linux 6.1.0) Courier/1.5.0 CurlTransport libcurl/7.88.1`.
    ///
    /// The app's name is the process's; its version is the main bundle's
    /// `CFBundleShortVersionString` when there is one (an executable on Linux has none,
    /// and then the name stands alone).
    public static let defaultUserAgent = CourierRelease.userAgent(
        client: "CurlTransport libcurl/\(CurlVersion.current)")

    /// The `Accept-Language` a request carries when neither it nor the
    /// ``Configuration/acceptLanguage`` says otherwise: the user's preferred languages, most
    /// preferred first with falling quality values (`en-US, fr;q=0.9`), as Alamofire sends
    /// them; `en` when the system names none (`URLSession` on Linux sends `en`).
    public static let defaultAcceptLanguage: String = {
        let languages = Locale.preferredLanguages.prefix(6).map(visibleASCII).filter { !$0.isEmpty }
        guard !languages.isEmpty else { return "en" }
        return languages.enumerated().map { index, language in
            index == 0 ? language : "\(language);q=\(String(format: "%.1f", 1.0 - Double(index) * 0.1))"
        }.joined(separator: ", ")
    }()

    /// `text` with only visible ASCII and spaces: a process name or a locale could hold anything.
    private static func visibleASCII(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }))
    }
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
