import CourierTestServer
import CourierTesting
import Foundation

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A directory of one test's own: its input files, and (in `transfers`) the files Courier
/// writes while the test's requests run, so a test can check that nothing is left behind
/// while other tests run in parallel.
struct ScratchDirectory {
    let url: URL
    /// Where Courier's multipart and download files go during ``withTransfers(_:)``.
    let transfers: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-transfer-test-\(UUID())")
        transfers = url.appendingPathComponent("transfers")
        try FileManager.default.createDirectory(at: transfers, withIntermediateDirectories: true)
    }

    /// Runs `body` with Courier's transfer files in ``transfers``; `diskThreshold` lowers
    /// the size from which multipart bodies go through a file, so a test can take that path
    /// with a small body (the real 10 MiB threshold has a test of its own).
    func withTransfers<T>(
        diskThreshold: UInt64? = nil, _ body: () async throws -> T
    ) async rethrows -> T {
        try await TransferDirectory.$override.withValue(transfers) {
            try await MultipartFormat.$memoryThreshold.withValue(
                diskThreshold ?? MultipartFormat.encodingMemoryThreshold
            ) { try await body() }
        }
    }

    /// The names of the files in ``transfers``.
    func transferFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: transfers.path).sorted()
    }

    /// A file of `size` bytes of ``PseudoRandomBytes`` for `seed`, written off the
    /// cooperative threads.
    func file(_ name: String, size: Int, seed: UInt64 = 1) async throws -> URL {
        try await offThePool { [self] in try writeFile(name, size: size, seed: seed) }
    }

    private func writeFile(_ name: String, size: Int, seed: UInt64) throws -> URL {
        let file = url.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try PseudoRandomBytes.append(size, seed: seed, firstBlock: 0) { try handle.write(contentsOf: $0) }
        return file
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Deterministic test content that is cheap to make in a debug build: a 64 KiB block of
/// xorshift64* bytes for the seed, repeated, each repetition stamped with its index in its
/// first 8 bytes (so a lost, repeated or reordered block changes the digest).
enum PseudoRandomBytes {
    static let blockSize = 64 * 1024

    /// `count` bytes for `seed`.
    static func data(count: Int, seed: UInt64) -> Data {
        var data = Data()
        data.reserveCapacity(count)
        append(count, seed: seed, firstBlock: 0) { data.append($0) }
        return data
    }

    /// Hands `count` bytes for `seed` to `sink` in blocks of up to 64 KiB.
    static func append(_ count: Int, seed: UInt64, firstBlock: Int, to sink: (Data) throws -> Void) rethrows {
        let base = block(seed: seed)
        var index = firstBlock
        var remaining = count
        while remaining > 0 {
            var block = base
            withUnsafeBytes(of: UInt64(index).littleEndian) { block.replaceSubrange(0..<8, with: $0) }
            let size = min(remaining, blockSize)
            try sink(size == blockSize ? block : block.prefix(size))
            remaining -= size
            index += 1
        }
    }

    private static func block(seed: UInt64) -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var words = [UInt64](repeating: 0, count: blockSize / 8)
        for index in words.indices {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            words[index] = state &* 0x2545_F491_4F6C_DD1D
        }
        return words.withUnsafeBytes { Data($0) }
    }
}

extension Data {
    /// The test server's deterministic content: byte i is (i × 31 + 7) mod 256.
    static func serverPattern(count: Int) -> Data {
        // The pattern repeats every 256 bytes: double one period up to the size (fast in a
        // debug build).
        let period = Data((0..<256).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        var data = Data()
        data.reserveCapacity(count)
        data.append(period.prefix(count))
        while data.count < count { data.append(data.prefix(count - data.count)) }
        return data
    }
}

/// What `/upload` reports: the raw body's size, digest and content type.
struct UploadDigest: Decodable {
    let length: Int
    let sha256: String
    let contentType: String?

    enum CodingKeys: String, CodingKey {
        case length, sha256
        case contentType = "content_type"
    }
}

/// What `/multipart` reports: each part as the server parsed it.
struct MultipartEcho: Decodable {
    struct Part: Decodable {
        let name: String
        let filename: String?
        let contentType: String?
        let length: Int
        let sha256: String
        let value: String?

        enum CodingKeys: String, CodingKey {
            case name, filename, length, sha256, value
            case contentType = "content_type"
        }
    }

    let parts: [Part]
    let boundary: String
    let args: [String: [String]]
    /// The whole body's size.
    let length: Int
}

/// What a protected `/api/…` route answers when the token is good.
struct ProtectedEcho: Decodable {
    let ok: Bool
    let path: String
    let bodyLength: Int

    enum CodingKeys: String, CodingKey {
        case ok, path
        case bodyLength = "body_length"
    }
}

/// Collects what a progress callback receives, from any thread.
final class ProgressLog: Sendable {
    private let steps = LockIsolated<[ProgressResponse]>([])

    func append(_ step: ProgressResponse) {
        steps.withValue { $0.append(step) }
    }

    var all: [ProgressResponse] { steps.value }
}

extension Array where Element == ProgressResponse {
    /// Whether the fractions never go back.
    var isMonotonic: Bool {
        zip(self, dropFirst()).allSatisfy { $0.progress <= $1.progress }
    }

    /// Whether this is a complete run: every step but the last without a response (its
    /// fraction may reach 1 once every byte has moved), and the last at exactly 1 with the
    /// response.
    var endsCompleteAtOne: Bool {
        guard let last else { return false }
        return last.progress == 1 && last.completed && dropLast().allSatisfy { $0.progress <= 1 && !$0.completed }
    }
}

/// Runs blocking work (a process, a big file) on a thread of its own, so that it never holds
/// one of the few cooperative threads that the tests running in parallel share, nor a
/// Dispatch worker (on Linux, libdispatch notices blocked workers only after a while, and
/// `URLSession` delivers its callbacks through those workers).
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
