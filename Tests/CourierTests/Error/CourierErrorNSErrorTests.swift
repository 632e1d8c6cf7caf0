import Courier
import Foundation
import Testing

@Suite("CourierError bridges to NSError as MoyaError does")
struct CourierErrorNSErrorTests {
    struct Cause: Error {}
    static let response = Response(statusCode: 500, data: Data("secret-token".utf8))

    static let wrapping: [CourierError] = [
        .objectMapping(Cause(), response), .encodableMapping(Cause()), .underlying(Cause(), response),
        .underlying(URLError(.timedOut), nil), .parameterEncoding(Cause()), .authentication(.sessionExpired),
    ]
    static let plain: [CourierError] = [
        .jsonMapping(response), .stringMapping(response), .statusCode(response),
        .requestMapping("https://example.com/?access_token=abc"), .cancelled,
    ]

    @Test("the localized description is the (redacted) description", arguments: wrapping + plain)
    func description(error: CourierError) {
        let bridged = error as NSError
        #expect(bridged.domain == CourierError.errorDomain)
        #expect(bridged.userInfo[NSLocalizedDescriptionKey] as? String == error.description)
        #expect(bridged.localizedDescription == error.description)
    }

    @Test("every case that wraps an error carries it as NSUnderlyingErrorKey", arguments: wrapping)
    func underlying(error: CourierError) throws {
        let underlying = try #require((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)
        let expected = try #require(error.underlyingError) as NSError
        #expect(underlying.domain == expected.domain)
        #expect(underlying.code == expected.code)
    }

    @Test("cases without a cause carry no underlying error", arguments: plain)
    func noUnderlying(error: CourierError) {
        #expect((error as NSError).userInfo[NSUnderlyingErrorKey] == nil)
    }

    @Test("each case has its own stable code")
    func codes() {
        let codes = [
            CourierError.jsonMapping(Self.response), .stringMapping(Self.response),
            .objectMapping(Cause(), Self.response),
            .encodableMapping(Cause()), .statusCode(Self.response), .underlying(Cause(), nil), .requestMapping("x"),
            .parameterEncoding(Cause()), .authentication(.missingCredential), .cancelled,
        ].map { ($0 as NSError).code }
        #expect(codes == Array(1...10))
    }

    @Test("a URLError underneath keeps its domain and code for NSError-based reporting")
    func urlError() throws {
        let bridged = CourierError.underlying(URLError(.notConnectedToInternet), nil) as NSError
        let underlying = try #require(bridged.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == NSURLErrorDomain)
        #expect(underlying.code == URLError.notConnectedToInternet.rawValue)
    }
}
