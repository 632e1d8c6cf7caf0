import Foundation

extension URLSessionTransport {
    /// The `User-Agent` a request carries when it sets none itself and the transport uses
    /// ``defaultConfiguration()``: the app's name and version, the operating system, Courier's
    /// version and the transport, `MyService/2.1 (Linux 6.1.0) Courier/1.7.0 URLSessionTransport`
    /// (see ``CourierRelease``).
    ///
    /// A transport made from your own `URLSessionConfiguration` sends what that configuration's
    /// `httpAdditionalHeaders` say, or `URLSession`'s own default.
    public static let defaultUserAgent = CourierRelease.userAgent(client: "URLSessionTransport")
}
