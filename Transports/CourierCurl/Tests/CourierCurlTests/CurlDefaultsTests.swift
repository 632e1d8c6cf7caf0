// Compiled only with the CurlTransport trait (see Package.swift); empty without it.
#if CurlTransport

import CCurl
import Courier
import CourierTestServer
import Foundation
import Testing

@testable import CourierCurl

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request carries without being told (what servers expect), and errors that name
/// what went wrong.
@Suite("CurlTransport's defaults", .timeLimit(.minutes(20)))
struct CurlDefaultsTests {
    @Test(
        "a request without a User-Agent or Accept-Language gets the app's name, the OS and the client stack; the caller's always wins"
    )
    func userAgent() async throws {
        let server = try await SharedCurlServer.get()
        let sent = try await CurlTransport().send(server.url("echo")).echo()
        let name = ProcessInfo.processInfo.processName
        #expect(sent.header("User-Agent") == CurlTransport.defaultUserAgent)
        #expect(CurlTransport.defaultUserAgent.hasPrefix(name))
        #expect(CurlTransport.defaultUserAgent.contains("\(CourierRelease.product) CurlTransport libcurl/"))
        #expect(sent.header("Accept-Encoding")?.contains("gzip") == true)
        #expect(sent.header("Accept-Language") == CurlTransport.defaultAcceptLanguage)
        #expect(!CurlTransport.defaultAcceptLanguage.isEmpty)
        // Any spelling of the caller's header wins, and it is sent once.
        let own = try await CurlTransport().send(
            server.url("echo"), headers: ["user-agent": "Mine/1.0", "accept-language": "de"]
        ).echo()
        #expect(own.header("User-Agent") == "Mine/1.0")
        #expect(own.header("Accept-Language") == "de")
        // A configured agent replaces the default; nil sends none.
        var configuration = CurlTransport.Configuration()
        configuration.userAgent = "Service/2.0"
        #expect(
            try await CurlTransport(configuration: configuration).send(server.url("echo")).echo()
                .header("User-Agent") == "Service/2.0")
        configuration.userAgent = nil
        #expect(
            try await CurlTransport(configuration: configuration).send(server.url("echo")).echo()
                .header("User-Agent") == nil)
    }

    @Test("a refused option is named, with libcurl's reason and, for an unknown one, what to install")
    func refusedOptionNamed() {
        let error = CurlTransportError.optionRefused(
            option: CurlOptionNames.name(of: CURLOPT_BUFFERSIZE),
            reason: CurlOptionNames.reason(CURLE_BAD_FUNCTION_ARGUMENT))
        #expect("\(error)".contains("refused CURLOPT_BUFFERSIZE"))
        #expect("\(error)".contains("bad argument (libcurl error 43)"))
        #expect(!"\(error)".contains("option 98"))
        #expect(CurlOptionNames.name(of: CURLOPT_PIPEWAIT) == "CURLOPT_PIPEWAIT")
        #expect(CurlOptionNames.reason(CURLE_UNKNOWN_OPTION).contains("older than 7.85"))
    }
}

#endif
