import Foundation

extension URL {
    /// Where a request goes, for an error's text: scheme, host, port and path, without the
    /// user info, query and fragment (any of which may carry a secret). The one rule behind
    /// every error that names a request by its URL alone (request validation, both transports'
    /// errors); `"an invalid URL"` when the URL cannot be taken apart.
    package var locationWithoutSecrets: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return "an invalid URL" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "an invalid URL"
    }
}
