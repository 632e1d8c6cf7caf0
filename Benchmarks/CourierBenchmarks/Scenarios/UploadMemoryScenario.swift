import Courier
import CourierTestServer
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Peak memory of a 100 MiB multipart upload (a file part streamed from disk) to the test
/// server, measured in a fresh child process so no earlier scenario's memory hides it.
struct UploadMemoryScenario {
    let megabytes: Int
    let runs: Int

    func run() async throws -> ScenarioResult {
        var peaks: [Double] = []
        var growths: [Double] = []
        var received: [Double] = []
        for _ in 0..<runs {
            let child = try ChildProcess.run(["--child", "upload-memory", "--child-count", String(megabytes)])
            peaks.append(try child.number("peak_rss_mib"))
            growths.append(try child.number("peak_growth_mib"))
            received.append(try child.number("received_mib"))
        }
        let peak = Summary(peaks)
        let growth = Summary(growths)
        var result = ScenarioResult()
        result.set("upload_peak_rss_mib", peak)
        result.set("upload_peak_growth_mib", growth)
        result.set("upload_mib", megabytes)
        let allArrived = received.allSatisfy { $0 == Double(megabytes) }
        result.rows = [
            Row(
                scenario: "Large upload memory", metric: "peak RSS, \(megabytes) MiB multipart upload",
                measured: peak.formatted(1, unit: "MiB")),
            Row(
                scenario: "Large upload memory", metric: "  growth over the process before the upload",
                measured: growth.formatted(1, unit: "MiB"), target: "far below \(megabytes) MiB",
                verdict: (growth.median < Double(megabytes) / 10 && allArrived) ? .met : .missed),
        ]
        result.notes.append(
            "Upload: VmHWM of a fresh child process before and after a multipart upload of a \(megabytes) MiB file "
                + "part to the test server's /multipart (which reports the part's length); \(runs) run(s).")
        return result
    }
}

/// The child side of ``UploadMemoryScenario``.
enum UploadMemoryChild {
    struct Upload: TargetType {
        let base: URL
        let file: URL
        var baseURL: URL { base }
        var path: String { "multipart" }
        var method: HTTPMethod { .post }
        var task: RequestTask {
            .uploadMultipart([
                MultipartFormBodyPart(provider: .data(Data("benchmark".utf8)), name: "caption"),
                MultipartFormBodyPart(
                    provider: .file(file), name: "file", fileName: "big.bin", mimeType: "application/octet-stream"),
            ])
        }
        var headers: [String: String]? { nil }
    }

    struct Parts: Decodable {
        struct Part: Decodable { let name: String; let length: Int }
        let parts: [Part]
    }

    static func run(megabytes: Int) async throws -> [String: Double] {
        let server = try await TestServer.start()
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try writeFile(file, megabytes: megabytes)
        let provider = Provider<Upload>()
        let small = FileManager.default.temporaryDirectory.appendingPathComponent(
            "courier-bench-small-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: small) }
        try Data(repeating: 1, count: 1024).write(to: small)
        // Warm up the session, the multipart path and the server connection.
        _ = try await provider.request(Upload(base: server.baseURL, file: small))
        // Growth is measured from the resident size just before the upload to the peak after
        // it: an upper bound, since an earlier peak (writing the file) also counts.
        let before = Double(ProcessMemory.residentBytes() ?? 0) / 1_048_576
        let response = try await provider.request(Upload(base: server.baseURL, file: file))
        let after = Double(ProcessMemory.peakResidentBytes() ?? 0) / 1_048_576
        let parts = try response.map(Parts.self)
        let length = parts.parts.first { $0.name == "file" }?.length ?? 0
        return [
            "peak_rss_mib": after, "peak_growth_mib": after - before,
            "received_mib": Double(length) / 1_048_576,
        ]
    }

    /// A file of `megabytes` MiB, written 1 MiB at a time.
    private static func writeFile(_ url: URL, megabytes: Int) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: url.path)
        else { throw StormFailure(description: "cannot create \(url.path)") }
        defer { try? handle.close() }
        let block = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        for _ in 0..<megabytes { try handle.write(contentsOf: block) }
    }
}
