import Courier
import CourierPlugins
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Deep and huge bodies through the logger: redacted before they are cut, never after, and
/// cut the same way whatever their size.
@Suite("NetworkLoggerPlugin: deep and huge bodies", .timeLimit(.minutes(20)))
struct NetworkLoggerHugeBodyTests {
    let lines = Collector<String>()

    func log(_ body: Data, status: Int = 400, contentType: String = "application/json", maximumBodyLength: Int = 4096)
        -> String
    {
        let logger = NetworkLoggerTestSupport.logger(lines, options: .verbose, maximumBodyLength: maximumBodyLength)
        let url = URL(string: "https://api.example.com/v1/items")!
        let response = Response(
            statusCode: status, data: body, request: URLRequest(url: url),
            response: HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": contentType]))
        logger.didReceive(.success(response), target: PluginTestTarget())
        return lines.all.first { $0.hasPrefix("Response Body: ") } ?? ""
    }

    @Test("the report's case: a refresh_token object 600 levels deep in an error body is hidden")
    func deepSecretObject() {
        let body =
            String(repeating: #"{"a":"#, count: 600) + #"{"refresh_token":{"value":"DEEP-SECRET-OBJECT"}}"#
            + String(repeating: "}", count: 600)
        let line = log(Data(body.utf8))
        #expect(!line.contains("DEEP-SECRET"))
        #expect(line.contains(#"{"refresh_token":"<redacted>"}"#))
        #expect(line.hasSuffix("}}}"), "shown whole: it is shorter than the limit")
    }

    @Test("a secret that starts before the cut and ends after it is hidden whole", arguments: [false, true])
    func secretAcrossTheCut(huge: Bool) {
        // `"refresh_token":"` ends 6 characters before the cut; the value goes on for 10 KB.
        let head = #"{"pad":""# + String(repeating: "x", count: 4096 - 6 - 8 - 19) + #"","refresh_token":""#
        let tail = huge ? #","more":""# + String(repeating: "y", count: 2 << 20) + #""}"# : "}"
        let body = head + String(repeating: "Q", count: 10_000) + "\"" + tail
        let line = log(Data(body.utf8))
        #expect(!line.contains("Q"))
        #expect(line.hasSuffix(#""refresh_token":"<redac… (truncated, \#(body.utf8.count) bytes in all)"#))
    }

    @Test("a JWT in a huge text body, cut in its middle by the limit, is hidden whole")
    func jwtAcrossTheCut() {
        let jwt = "eyJ" + String(repeating: "Q", count: 2000) + ".eyJ" + String(repeating: "Q", count: 2000) + ".QQQQ"
        let body =
            String(repeating: "log ", count: 1000) + "token " + jwt + " " + String(repeating: "z", count: 2 << 20)
        let line = log(Data(body.utf8), contentType: "text/plain")
        #expect(!line.contains("Q"))
        #expect(line.contains("token <redacted> zzz"))
        #expect(line.hasSuffix("… (truncated, \(body.utf8.count) bytes in all)"))
    }

    @Test("a body of several MB is cut to the limit, with its size, and no secret anywhere in it shows")
    func hugeBody() {
        var records: [String] = []
        for index in 0..<20_000 {
            records.append(#"{"id":\#(index),"access_token":{"v":"SECRET-\#(index)"},"note":"Bearer SECRET-B"}"#)
        }
        let body = Data(("[" + records.joined(separator: ",") + "]").utf8)
        let line = log(body, maximumBodyLength: 300)
        let shown = line.dropFirst("Response Body: ".count)
        #expect(!line.contains("SECRET"))
        #expect(shown.hasPrefix(#"[{"id":0,"access_token":"<redacted>","note":"Bearer <redacted>"}"#))
        #expect(shown.hasSuffix("… (truncated, \(body.count) bytes in all)"))
        #expect(shown.count == 300 + "… (truncated, \(body.count) bytes in all)".count)
    }

    @Test("up to 1 MiB a formatter gets the whole redacted body; beyond, only what can be shown")
    func formatterInput() {
        let sizes = LockIsolated<[Int]>([])
        let logger = NetworkLoggerPlugin(
            configuration: .init(
                formatter: .init(
                    entry: { identifier, message, _ in "\(identifier): \(message)" },
                    responseData: { data in
                        sizes.withValue { $0.append(data.count) }
                        return NetworkLoggerPlugin.Configuration.Formatter.prettyJSON(data)
                    }),
                output: { _, items in lines.append(contentsOf: items) }, logOptions: .verbose))
        let record = #"{"password":"SECRET","name":"Ada"}"#
        for count in [10_000, 60_000] {
            let body = Data(("[" + Array(repeating: record, count: count).joined(separator: ",") + "]").utf8)
            logger.didReceive(.success(Response(statusCode: 200, data: body)), target: PluginTestTarget())
        }
        let bodies = lines.all.filter { $0.hasPrefix("Response Body: ") }
        #expect(bodies.count == 2)
        #expect(bodies.allSatisfy { !$0.contains("SECRET") })
        #expect(bodies[0].contains("\n"), "the 350 KB body is pretty-printed whole, then cut")
        #expect(sizes.value[0] > 300_000)
        #expect(sizes.value[1] < 20_000, "the 2 MB body: only its beginning is redacted and formatted")
    }

    @Test("the cURL form leaves out a huge body, and shows a small one redacted")
    func curl() {
        let logger = NetworkLoggerTestSupport.logger(lines, options: .formatRequestAscURL)
        var request = URLRequest(url: URL(string: "https://api.example.com/v1/login")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let secret = #"{"password":{"v":"SECRET"}}"#
        request.httpBody = Data((String(repeating: " ", count: 2 << 20) + secret).utf8)
        #expect(
            logger.cURL(for: request).hasSuffix("# request body of \((2 << 20) + secret.utf8.count) bytes not shown"))
        request.httpBody = Data(secret.utf8)
        #expect(logger.cURL(for: request).contains(#"--data-raw '{"password":"<redacted>"}'"#))
    }
}
