import Courier
import CourierTestServer
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every `RequestTask` case, checked by what the server actually received.
@Suite("Encoding against the echo route", .timeLimit(.minutes(20)))
struct EncodingIntegrationTests {
    let server: TestServer
    let provider = Provider<ServerAPI>()

    init() async throws {
        server = try await SharedServer.get()
    }

    private func echo(
        _ path: String = "echo", _ method: HTTPMethod = .post, _ task: RequestTask, headers: [String: String]? = nil
    )
        async throws -> Echo
    {
        try await provider.request(ServerAPI(server, path, method: method, task: task, headers: headers)).echo()
    }

    @Test("requestPlain sends no body and keeps target headers")
    func plain() async throws {
        let echo = try await echo("echo/a/b", .get, .requestPlain, headers: ["X-Custom": "v 1"])
        #expect(echo.method == "GET")
        #expect(echo.path == "/echo/a/b")
        #expect(echo.bodyLength == 0)
        #expect(echo.header("X-Custom") == "v 1")
    }

    @Test("requestData sends the bytes as they are")
    func data() async throws {
        let payload = Data("raw \u{1F600} bytes\r\n".utf8)
        let echo = try await echo("echo", .put, .requestData(payload))
        #expect(echo.method == "PUT")
        #expect(echo.body == String(decoding: payload, as: UTF8.self))
        #expect(echo.bodyLength == payload.count)
    }

    @Test("requestJSONEncodable and requestCustomJSONEncodable send JSON with its content type")
    func jsonEncodable() async throws {
        struct Payload: Encodable, Sendable { let userName: String; let emoji: String }
        let plain = try await echo(
            "echo", .post, .requestJSONEncodable(Payload(userName: "Ada \"L\"", emoji: "\u{2603}")))
        #expect(plain.header("Content-Type") == "application/json")
        #expect(try plain.jsonBody()["userName"] as? String == "Ada \"L\"")
        #expect(try plain.jsonBody()["emoji"] as? String == "\u{2603}")

        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let custom = try await echo(
            "echo", .post, .requestCustomJSONEncodable(Payload(userName: "B", emoji: ""), encoder: encoder))
        #expect(try custom.jsonBody()["user_name"] as? String == "B")
    }

    @Test("requestParameters with URLEncoding.default: GET in the query, POST as a form body")
    func urlEncodingDefault() async throws {
        let parameters: [String: any Sendable] = [
            "q": "a b&c=d/é?", "tags": ["x", "y z"], "flag": true, "nested": ["k": "v"] as [String: any Sendable],
        ]
        let get = try await echo(
            "echo", .get, .requestParameters(parameters: parameters, encoding: URLEncoding.default))
        #expect(get.args["q"] == ["a b&c=d/é?"])
        #expect(get.args["tags[]"] == ["x", "y z"])
        #expect(get.args["flag"] == ["1"])
        #expect(get.args["nested[k]"] == ["v"])
        #expect(get.bodyLength == 0)

        let post = try await echo(
            "echo", .post, .requestParameters(parameters: parameters, encoding: URLEncoding.default))
        #expect(post.query == "")
        #expect(post.form?["q"] == ["a b&c=d/é?"])
        #expect(post.form?["tags[]"] == ["x", "y z"])
        #expect(post.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test("requestParameters with queryString on POST and httpBody on GET")
    func forcedDestinations() async throws {
        let query = try await echo(
            "echo", .post, .requestParameters(parameters: ["a": 1], encoding: URLEncoding.queryString))
        #expect(query.args["a"] == ["1"])
        #expect(query.bodyLength == 0)
        let body = try await echo(
            "echo", .put, .requestParameters(parameters: ["a": 1], encoding: URLEncoding.httpBody))
        #expect(body.form?["a"] == ["1"])
    }

    @Test("requestParameters with JSONEncoding")
    func jsonEncoding() async throws {
        let echo = try await echo(
            "echo", .patch, .requestParameters(parameters: ["n": 1, "list": [1, 2]], encoding: JSONEncoding.default))
        #expect(echo.method == "PATCH")
        #expect(try echo.jsonBody()["list"] as? [Int] == [1, 2])
        #expect(echo.header("Content-Type") == "application/json")
    }

    @Test("requestCompositeData: the body as given and parameters in the query")
    func compositeData() async throws {
        let echo = try await echo(
            "echo", .post, .requestCompositeData(bodyData: Data("body!".utf8), urlParameters: ["page": 2, "s": "x y"]))
        #expect(echo.body == "body!")
        #expect(echo.args["page"] == ["2"])
        #expect(echo.args["s"] == ["x y"])
    }

    @Test("requestCompositeParameters: encoded body and parameters in the query, both ways")
    func compositeParameters() async throws {
        let json = try await echo(
            "echo", .post,
            .requestCompositeParameters(
                bodyParameters: ["name": "Ada"], bodyEncoding: JSONEncoding.default, urlParameters: ["v": "2"]))
        #expect(try json.jsonBody()["name"] as? String == "Ada")
        #expect(json.args["v"] == ["2"])

        let form = try await echo(
            "echo", .post,
            .requestCompositeParameters(
                bodyParameters: ["name": "A&B"], bodyEncoding: URLEncoding.httpBody, urlParameters: ["v": "2"]))
        #expect(form.form?["name"] == ["A&B"])
        #expect(form.args["v"] == ["2"])
    }

    @Test("a base URL with a query keeps it next to the target's parameters")
    func baseQueryKept() async throws {
        var target = ServerAPI(
            server, "echo", task: .requestParameters(parameters: ["b": "2"], encoding: URLEncoding.default))
        target.base = URL(string: server.baseURL.absoluteString + "/?key=k1")!
        let echo = try await provider.request(target).echo()
        #expect(echo.args["key"] == ["k1"])
        #expect(echo.args["b"] == ["2"])
        #expect(echo.path == "/echo")
    }

    @Test("uploadFile streams the file's bytes")
    func uploadFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        let bytes = Data((0..<70_000).map { UInt8($0 % 251) })
        try bytes.write(to: file)
        let echo = try await echo("echo", .post, .uploadFile(file))
        #expect(echo.bodyLength == bytes.count)
    }

    @Test("uploadMultipart and uploadCompositeMultipart send fields and files with special names")
    func multipart() async throws {
        struct Parts: Decodable {
            struct Part: Decodable { let name: String; let filename: String?; let length: Int; let value: String? }
            let parts: [Part]
        }
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "na\"me é"),
            MultipartFormBodyPart(
                provider: .data(Data(repeating: 7, count: 1000)), name: "file", fileName: "photo \"1\".jpg",
                mimeType: "image/jpeg"),
        ]
        let simple = try await provider.request(
            ServerAPI(server, "multipart", method: .post, task: .uploadMultipart(parts))
        )
        .map(Parts.self)
        #expect(simple.parts.map(\.name) == ["na\"me é", "file"])
        #expect(simple.parts[0].value == "Ada")
        #expect(simple.parts[1].filename == "photo \"1\".jpg")
        #expect(simple.parts[1].length == 1000)

        let composite = try await provider.request(
            ServerAPI(
                server, "echo", method: .post, task: .uploadCompositeMultipart(parts, urlParameters: ["album": "x"]))
        ).echo()
        #expect(composite.args["album"] == ["x"])
        #expect(composite.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    @Test("downloadDestination and downloadParameters put the body in the destination file")
    func download() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-dl-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("a/b/file.bin")
        let response = try await provider.request(
            ServerAPI(
                server, "bytes/5000",
                task: .downloadDestination { _, _ in (destination, [.createIntermediateDirectories]) }))
        #expect(response.statusCode == 200)
        #expect(response.data.isEmpty)
        #expect(response.fileURL == destination)
        let expected = Data((0..<5000).map { UInt8(($0 * 31 + 7) % 256) })
        #expect(try Data(contentsOf: destination) == expected)

        let withQuery = try await provider.request(
            ServerAPI(
                server, "echo",
                task: .downloadParameters(parameters: ["q": "x"], encoding: URLEncoding.queryString) { _, _ in
                    (destination, [.removePreviousFile])
                }))
        let echoed = try JSONDecoder().decode(Echo.self, from: Data(contentsOf: try #require(withQuery.fileURL)))
        #expect(echoed.args["q"] == ["x"])
    }
}
