import Dispatch
import Foundation
import Testing

/// What the compiler says about a mistake in a script: each snippet is type-checked with
/// `swiftc` against the `CourierTesting` module this test run was built with.
@Suite("ScriptedTransport compiler diagnostics", .serialized, .timeLimit(.minutes(20)))
struct ScriptedTransportDiagnosticsTests {
    static let preamble = """
        import Courier
        import CourierTesting
        let transport = ScriptedTransport()

        """

    @Test("a correct script type-checks (so the checks below see real diagnostics)")
    func correctScript() async throws {
        let output = try await Self.typecheck(
            """
            transport.enqueue(.json("{}", statusCode: 201), for: .get("/me"))
            transport.enqueue(.status(401), .text("ok"), for: .post("/me"))
            transport.enqueue(contentsOf: [.status(500), .status(200)], for: .any)
            """)
        #expect(output.status == 0, "\(output.diagnostics)")
    }

    @Test(
        "a wrong label inside the only reply is reported at that argument, by name, not as a missing member of [Reply]")
    func wrongLabelInReply() async throws {
        let line = #"transport.enqueue(.json("{}", status: 201), for: .get("/me"))"#
        let output = try await Self.typecheck(line)
        // swiftc points at the argument's value and names its label.
        let column = try #require(line.range(of: "201")).lowerBound.utf16Offset(in: line) + 1
        #expect(output.status != 0)
        #expect(output.diagnostics.contains("main.swift:4:\(column): error: extra argument 'status' in call"))
        #expect(!output.diagnostics.contains("has no member"), "\(output.diagnostics)")
    }

    @Test("a wrong label on enqueue itself names the label expected")
    func wrongLabelOnEnqueue() async throws {
        let output = try await Self.typecheck(#"transport.enqueue(.status(200), four: .get("/me"))"#)
        #expect(output.status != 0)
        #expect(output.diagnostics.contains("incorrect argument label in call (have '_:four:', expected '_:for:')"))
    }

    @Test("an array passed where replies are listed says how to pass it")
    func arrayWithoutContentsOf() async throws {
        let output = try await Self.typecheck(#"transport.enqueue([.status(200)], for: .get("/me"))"#)
        #expect(output.status != 0)
        #expect(output.diagnostics.contains("remove brackets to pass array elements directly"))
        #expect(output.diagnostics.contains("expected: '(contentsOf:for:)'"))
    }

    // MARK: Helpers

    struct Output {
        var status: Int32
        var diagnostics: String
    }

    /// Type-checks `code` (after the preamble) as `main.swift` against the built modules.
    ///
    /// swiftc takes seconds: it runs and is waited for on a thread of its own, never on one of
    /// Swift Concurrency's few cooperative threads, which the other suites running beside this
    /// one need (blocking one held their cancellations up by the length of a compile).
    static func typecheck(_ code: String) async throws -> Output {
        let swiftc = try #require(findSwiftc(), "swiftc is not on PATH")
        let modules = try #require(builtModules(), "the built modules were not found next to the test binary")
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try typecheckBlocking(code, swiftc: swiftc, modules: modules) })
            }.start()
        }
    }

    private static func typecheckBlocking(_ code: String, swiftc: URL, modules: URL) throws -> Output {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-diagnostics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("main.swift")
        try Data((preamble + code + "\n").utf8).write(to: source)

        let process = Process()
        process.executableURL = swiftc
        process.arguments = [
            "-typecheck", "-swift-version", "6", "-I", modules.path, "-diagnostic-style", "llvm", source.path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, diagnostics: String(decoding: data, as: UTF8.self))
    }

    static func findSwiftc() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates =
            path.split(separator: ":").map { URL(fileURLWithPath: String($0)) }
            + [URL(fileURLWithPath: "/opt/swift/usr/bin")]
        return candidates.map { $0.appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The `Modules` folder of the build this test binary belongs to (debug, or a sanitizer's
    /// scratch path), found by walking up from the running executable.
    static func builtModules() -> URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            for candidate in [directory.appendingPathComponent("Modules"), directory] {
                let module = candidate.appendingPathComponent("CourierTesting.swiftmodule")
                if FileManager.default.fileExists(atPath: module.path) { return candidate }
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}
