// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import Courier
import CourierCurl
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `// CourierCurl` samples of the root README and of this package's DocC catalog,
/// compiled; `CurlDocSamplesSyncTests` checks that the docs show them line for line.
enum CurlDocSamples {
    enum GitHub: TargetType {  // sample scaffold
        case zen  // sample scaffold
        var baseURL: URL { URL(string: "https://api.github.com")! }  // sample scaffold
        var path: String { "/zen" }  // sample scaffold
        var method: HTTPMethod { .get }  // sample scaffold
        var task: RequestTask { .requestPlain }  // sample scaffold
        var headers: [String: String]? { nil }  // sample scaffold
    }  // sample scaffold

    static func adoption() -> Provider<GitHub> {  // sample scaffold
        let provider = Provider<GitHub>(transport: CurlTransport())
        return provider  // sample scaffold
    }  // sample scaffold

    static func configured() -> Provider<GitHub> {  // sample scaffold
        var configuration = CurlTransport.Configuration()
        configuration.timeoutIntervalForRequest = 10
        configuration.pinnedPublicKey = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="
        let pinned = Provider<GitHub>(transport: CurlTransport(configuration: configuration))
        return pinned  // sample scaffold
    }  // sample scaffold

    static func closing() async -> Provider<GitHub> {  // sample scaffold
        let transport = CurlTransport()
        let provider = Provider<GitHub>(transport: transport)
        // … on SIGTERM, once the last requests are answered:
        await transport.close()
        return provider  // sample scaffold
    }  // sample scaffold
}

#endif
