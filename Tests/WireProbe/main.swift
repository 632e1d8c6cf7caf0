import Courier
import Foundation

#if CurlTransport
    import CourierCurl
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CourierWireProbe <urlSession|curl> <url>`: sends one GET to `<url>` with the named
/// transport and prints one line, `OK <status>` or `FAILED <URLError code> <description>`.
///
/// A child process of the integration tests, for what must not touch the test process: its
/// environment (`https_proxy`, which libcurl reads under both transports) is the test's to set.
let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[2]) else {
    print("usage: CourierWireProbe <urlSession|curl> <url>")
    exit(2)
}

let transport: any HTTPTransport
switch arguments[1] {
#if CurlTransport
    case "curl": transport = CurlTransport()
#endif
default: transport = URLSessionTransport()
}

var request = URLRequest(url: url)
request.timeoutInterval = 60
do {
    let response = try await transport.send(TransportRequest(urlRequest: request))
    print("OK \(response.statusCode)")
} catch let error as URLError {
    print("FAILED \(error.code.rawValue) \(error.localizedDescription)")
} catch {
    print("FAILED 0 \(error)")
}
