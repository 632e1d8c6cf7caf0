import Courier
import CourierPlugins
import CourierTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("NetworkLoggerPlugin", .timeLimit(.minutes(20)))
struct NetworkLoggerPluginTests {
    let transport = ScriptedTransport()
    let lines = Collector<String>()

    @Test("the default options log the request's URL, headers and method, and the response's status and headers")
    func defaultOptions() async throws {
        transport.always(.json(#"{"id":1}"#, headers: ["X-Request-Id": "r-1"]), for: .get("/items"))
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: .default)])

        _ = try await provider.request(PluginTestTarget(headers: ["Accept": "application/json"]))

        #expect(
            lines.all == [
                "Request: https://api.example.com/v1/items",
                #"Request Headers: ["Accept": "application/json"]"#,
                "HTTP Request Method: GET",
                "Response: 200 https://api.example.com/v1/items",
                #"Response Headers: ["Content-Type": "application/json", "X-Request-Id": "r-1"]"#,
            ])
    }

    @Test("the metrics option logs what the attempt cost in one line, and nothing when the transport measured nothing")
    func metrics() async throws {
        let measured = TransferMetrics(total: 0.0125, bytesReceived: 9, reusedConnection: true, protocolVersion: "1.1")
        let provider = Provider<PluginTestTarget>(
            transport: ClosureTransport { request in
                Response(statusCode: 200, data: Data(#"{"id":1}"#.utf8), request: request.urlRequest, metrics: measured)
            }, plugins: [NetworkLoggerTestSupport.logger(lines, options: [.metrics])])
        _ = try await provider.request(PluginTestTarget())
        #expect(lines.all.contains("Metrics: total 12.5 ms; received 9 B; http/1.1, reused"))
        let stubbed = Provider<PluginTestTarget>(
            stubClosure: Provider.immediatelyStub,
            plugins: [NetworkLoggerTestSupport.logger(lines, options: [.metrics])])
        let before = lines.all.count
        _ = try await stubbed.request(PluginTestTarget())
        #expect(!lines.all.dropFirst(before).contains { $0.hasPrefix("Metrics:") })
    }

    @Test("verbose logs request and response bodies; error bodies only with errorResponseBody")
    func bodies() async throws {
        transport.enqueue(
            .json(#"{"created":true}"#, statusCode: 201), .json(#"{"error":"bad"}"#, statusCode: 422),
            for: .post("/items"))
        let target = PluginTestTarget(method: .post, task: .requestJSONEncodable(["name": "Ada"]))
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: [.requestBody, .successResponseBody])])

        _ = try await provider.request(target)
        _ = try await provider.request(target)

        #expect(
            lines.all == [
                "Request: https://api.example.com/v1/items",
                #"Request Body: {"name":"Ada"}"#,
                "Response: 201 https://api.example.com/v1/items",
                #"Response Body: {"created":true}"#,
                "Request: https://api.example.com/v1/items",
                #"Request Body: {"name":"Ada"}"#,
                "Response: 422 https://api.example.com/v1/items",
            ])
    }

    @Test("a failed validation logs the response with its error body")
    func validationFailure() async throws {
        transport.always(.json(#"{"message":"Not Found"}"#, statusCode: 404), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: [.errorResponseBody])])

        await #expect(throws: CourierError.self) {
            try await provider.request(PluginTestTarget(validationType: .successCodes))
        }
        #expect(lines.all.last == #"Response Body: {"message":"Not Found"}"#)
        #expect(lines.all.contains("Response: 404 https://api.example.com/v1/items"))
    }

    @Test("an error without a response is logged as an Error line")
    func networkError() async throws {
        transport.always(.failure(URLError(.notConnectedToInternet)), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: [])])

        await #expect(throws: CourierError.self) { try await provider.request(PluginTestTarget()) }

        #expect(lines.all.count == 2)
        // The error line names the request and says what failed in words.
        #expect(
            lines.all[1]
                == "Error: GET https://api.example.com/v1/items failed: not connected to the internet (URLError -1009)."
        )
    }

    @Test("bodies longer than the limit are cut, with their size shown")
    func truncation() async throws {
        let big = String(repeating: "a", count: 10_000)
        transport.always(.text(big), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(
            transport,
            plugins: [NetworkLoggerTestSupport.logger(lines, options: [.successResponseBody], maximumBodyLength: 100)])

        _ = try await provider.request(PluginTestTarget())

        let body = try #require(lines.all.first { $0.hasPrefix("Response Body: ") })
        #expect(body == "Response Body: " + String(repeating: "a", count: 100) + "… (truncated, 10000 bytes in all)")
    }

    @Test("binary bodies are shown by size")
    func binaryBody() async throws {
        transport.always(.data(Data([0xFF, 0xFE, 0x00, 0x80])), for: .any)
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: [.successResponseBody])])

        _ = try await provider.request(PluginTestTarget())

        #expect(lines.all.last == "Response Body: (4 bytes of binary data)")
    }

    @Test("the output closure gets the target, and the default entry formatter stamps each line")
    func outputAndFormatter() async throws {
        let targets = Collector<String>()
        let logger = NetworkLoggerPlugin(
            configuration: .init(output: { target, items in
                targets.append(target.path)
                lines.append(contentsOf: items)
            }))
        let provider = Provider<PluginTestTarget>.stubbed(plugins: [logger])

        _ = try await provider.request(PluginTestTarget(path: "zen"))

        #expect(targets.all == ["zen", "zen"])
        #expect(lines.all.first?.hasPrefix("Courier: [") == true)
        #expect(lines.all.first?.hasSuffix("] Request: https://api.example.com/v1/zen") == true)
    }

    @Test("a custom data formatter sees the redacted body")
    func customFormatter() async throws {
        let seen = Collector<String>()
        let logger = NetworkLoggerPlugin(
            configuration: .init(
                formatter: .init(
                    entry: { identifier, message, _ in "\(identifier): \(message)" },
                    responseData: { data in
                        let text = String(decoding: data, as: UTF8.self)
                        seen.append(text)
                        return NetworkLoggerPlugin.Configuration.Formatter.prettyJSON(data)
                    }),
                output: { _, items in lines.append(contentsOf: items) },
                logOptions: [.successResponseBody]))
        transport.always(.json(#"{"access_token":"s3cr3t","b":1}"#), for: .any)

        _ = try await Provider<PluginTestTarget>.scripted(transport, plugins: [logger]).request(PluginTestTarget())

        #expect(seen.all == [#"{"access_token":"<redacted>","b":1}"#])
        #expect(lines.all.last == "Response Body: {\n  \"access_token\" : \"<redacted>\",\n  \"b\" : 1\n}")
    }

    @Test("the cURL form is one copy-pasteable command line")
    func cURL() async throws {
        transport.always(.status(204), for: .any)
        let target = PluginTestTarget(
            method: .post, task: .requestJSONEncodable(["name": "O'Brien"]), headers: ["X-Note": "it's"])
        let provider = Provider<PluginTestTarget>.scripted(
            transport, plugins: [NetworkLoggerTestSupport.logger(lines, options: [.formatRequestAscURL])])

        _ = try await provider.request(target)

        let line = try #require(lines.all.first { $0.hasPrefix("cURL: ") })
        let command = String(line.dropFirst("cURL: ".count))
        #expect(
            command
                == #"curl -X 'POST' -H 'Content-Type: application/json' -H 'X-Note: it'\''s' --data-raw '{"name":"O'\''Brien"}' 'https://api.example.com/v1/items'"#
        )
        // A shell reads it back into exactly the arguments curl would get.
        #expect(
            try await ShellWords.split(command) == [
                "curl", "-X", "POST", "-H", "Content-Type: application/json", "-H", "X-Note: it's", "--data-raw",
                #"{"name":"O'Brien"}"#, "https://api.example.com/v1/items",
            ])
    }

    @Test("the cURL form leaves out a body it cannot show, with a comment, and uses --head for HEAD")
    func cURLWithoutBody() async throws {
        let logger = NetworkLoggerTestSupport.logger(lines, maximumBodyLength: 10)
        var request = URLRequest(url: URL(string: "https://example.com/upload")!)
        request.httpMethod = "PUT"
        request.httpBody = Data(repeating: 0x41, count: 50)
        #expect(
            logger.cURL(for: request)
                == "curl -X 'PUT' 'https://example.com/upload' # request body of 50 bytes not shown")
        #expect(
            try await ShellWords.split(logger.cURL(for: request)) == [
                "curl", "-X", "PUT", "https://example.com/upload",
            ])

        var head = URLRequest(url: URL(string: "https://example.com/")!)
        head.httpMethod = "HEAD"
        #expect(logger.cURL(for: head) == "curl --head 'https://example.com/'")
    }
}

/// Splits a command line the way `/bin/sh` does, by asking it.
enum ShellWords {
    static func split(_ command: String) async throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let script = #"curl() { printf '%s\0' curl "$@"; }; "# + command
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        // Wait off the cooperative pool: reading the pipe and waiting for exit block.
        let data = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            DispatchQueue.global().async {
                do {
                    try process.run()
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: data)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }
}
