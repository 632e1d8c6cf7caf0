import Courier
import Foundation
import Testing

@Suite("Response filtering and mapping")
struct ResponseTests {
    private func response(_ status: Int = 200, _ body: String) -> Response {
        Response(statusCode: status, data: Data(body.utf8))
    }

    private let nested =
        #"{"data":{"user":{"id":7,"name":"Ada","tags":["a","b"]},"items":[{"id":1},{"id":2}]},"msg":"hi","none":null}"#

    @Test("filters pass matching codes and throw statusCode otherwise", arguments: [200, 204, 301, 404, 500])
    func filters(code: Int) throws {
        let r = response(code, "")
        #expect(((try? r.filterSuccessfulStatusCodes()) != nil) == (200...299).contains(code))
        #expect(((try? r.filterSuccessfulStatusAndRedirectCodes()) != nil) == (200...399).contains(code))
        #expect((try? r.filter(statusCode: code)) != nil)
        #expect(((try? r.filter(statusCodes: 400..<500)) != nil) == (400..<500).contains(code))
        if !(200...299).contains(code) {
            #expect(throws: CourierError.self) { try r.filterSuccessfulStatusCodes() }
            do {
                _ = try r.filterSuccessfulStatusCodes()
            } catch {
                #expect(error.response?.statusCode == code)
            }
        }
    }

    @Test("mapJSON parses JSON and fails typed on anything else")
    func mapJSON() throws {
        let object = try response(200, nested).mapJSON() as? [String: Any]
        #expect(object?["msg"] as? String == "hi")
        #expect {
            try response(200, "<html>").mapJSON()
        } throws: { error in
            if case .jsonMapping(let r) = error as? CourierError { return r.statusCode == 200 }
            return false
        }
    }

    @Test("empty data fails mapJSON unless failsOnEmptyData is false")
    func emptyData() throws {
        #expect(throws: CourierError.self) { try response(204, "").mapJSON() }
        #expect(try response(204, "").mapJSON(failsOnEmptyData: false) is NSNull)
        let optional = try response(204, "").map(User?.self, failsOnEmptyData: false)
        #expect(optional == nil)
        #expect(throws: CourierError.self) { try response(204, "").map(User.self) }
    }

    @Test("mapString reads the body or a string at a key path through objects and arrays")
    func mapString() throws {
        let r = response(200, nested)
        #expect(try r.mapString().hasPrefix("{"))
        #expect(try r.mapString(atKeyPath: "msg") == "hi")
        #expect(try r.mapString(atKeyPath: "data.user.name") == "Ada")
        #expect(try r.mapString(atKeyPath: "data.user.tags.1") == "b")
        for missing in ["data.user.id", "data.nope", "data.items.5", "none", "data..user"] {
            #expect {
                try r.mapString(atKeyPath: missing)
            } throws: { error in
                if case .stringMapping = error as? CourierError { return true }
                return false
            }
        }
        let notUTF8 = Response(statusCode: 200, data: Data([0xff, 0xfe, 0xfd]))
        #expect(throws: CourierError.self) { try notUTF8.mapString() }
    }

    @Test("map decodes the body or a nested object or array at a key path")
    func mapDecodable() throws {
        struct Item: Decodable, Equatable { let id: Int }
        let r = response(200, nested)
        #expect(try r.map(User.self, atKeyPath: "data.user") == User(id: 7, name: "Ada"))
        #expect(try r.map([Item].self, atKeyPath: "data.items") == [Item(id: 1), Item(id: 2)])
        #expect(try r.map(Item.self, atKeyPath: "data.items.1") == Item(id: 2))
        #expect(try r.map(String.self, atKeyPath: "msg") == "hi")
        #expect(try response(200, #"{"id":1,"name":"B"}"#).map(User.self) == User(id: 1, name: "B"))
    }

    @Test("map failures are objectMapping errors carrying the response")
    func mapFailures() {
        let r = response(201, nested)
        for (type, path): (any Decodable.Type, String?) in [
            (User.self, "data.items"), (User.self, "data.missing"), (User.self, nil),
        ] {
            #expect {
                try r.map(type, atKeyPath: path)
            } throws: { error in
                guard case .objectMapping(_, let carried) = error as? CourierError else { return false }
                return carried.statusCode == 201
            }
        }
    }

    @Test("a response's description never shows its body")
    func description() {
        let r = response(200, #"{"access_token":"secret-abc"}"#)
        #expect(!r.debugDescription.contains("secret-abc"))
        #expect(r.debugDescription.contains("200"))
    }
}

@Suite("ValidationType")
struct ValidationTypeTests {
    @Test("accepts the documented ranges")
    func ranges() {
        #expect(ValidationType.none.accepts(500))
        #expect(ValidationType.successCodes.accepts(200) && !ValidationType.successCodes.accepts(302))
        #expect(ValidationType.successAndRedirectCodes.accepts(302))
        #expect(!ValidationType.successAndRedirectCodes.accepts(401))
        #expect(ValidationType.customCodes([200, 418]).accepts(418))
        #expect(!ValidationType.customCodes([200, 418]).accepts(201))
        #expect(ValidationType.successCodes.statusCodes == Array(200..<300))
    }
}
