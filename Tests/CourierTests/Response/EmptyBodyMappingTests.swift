import Courier
import Foundation
import Testing

@Suite("Mapping an empty body with failsOnEmptyData: false, as Moya does")
struct EmptyBodyMappingTests {
    struct Optionals: Decodable, Equatable {
        var id: Int?
        var name: String?
    }

    let empty = Response(statusCode: 204, data: Data())

    @Test("a type whose properties are all optional decodes from {}")
    func object() throws {
        #expect(try empty.map(Optionals.self, failsOnEmptyData: false) == Optionals())
    }

    @Test("an array of such a type decodes from [{}]")
    func array() throws {
        #expect(try empty.map([Optionals].self, failsOnEmptyData: false) == [Optionals()])
    }

    @Test("an optional of a type that needs its properties is nil")
    func optional() throws {
        #expect(try empty.map(User?.self, failsOnEmptyData: false) == nil)
    }

    @Test("a key path in an empty body gets the same fallbacks")
    func keyPath() throws {
        #expect(try empty.map(Optionals.self, atKeyPath: "data.user", failsOnEmptyData: false) == Optionals())
        #expect(try empty.map([Optionals].self, atKeyPath: "items", failsOnEmptyData: false) == [Optionals()])
    }

    @Test("a type that cannot be empty still throws objectMapping")
    func required() {
        #expect {
            try empty.map(User.self, failsOnEmptyData: false)
        } throws: { error in
            guard case .objectMapping(_, let response) = error as? CourierError else { return false }
            return response.statusCode == 204
        }
    }

    @Test("with failsOnEmptyData (the default) an empty body throws, and a missing key path always does")
    func failing() {
        #expect(throws: CourierError.self) { try empty.map(Optionals.self) }
        #expect(throws: CourierError.self) { try empty.map(Optionals.self, atKeyPath: "a") }
        let body = Response(statusCode: 200, data: Data(#"{"other":1}"#.utf8))
        #expect(throws: CourierError.self) { try body.map(Optionals.self, atKeyPath: "a", failsOnEmptyData: false) }
    }
}
