import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("PreparedBody")
struct PreparedBodyTests {
    let directory: URL
    let request = URLRequest(url: URL(string: "https://example.com/upload")!)

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-prepared-test-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func prepare(_ task: RequestTask, request: URLRequest? = nil) async throws(CourierError) -> PreparedBody {
        let request = request ?? self.request
        return try await TransferDirectory.$override.withValue(directory) {
            () async -> Result<PreparedBody, CourierError> in
            do throws(CourierError) {
                return .success(try await PreparedBody.prepare(for: task, request: request))
            } catch {
                return .failure(error)
            }
        }.get()
    }

    private func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
    }

    @Test("a small multipart body is uploaded from memory, with its boundary in the Content-Type")
    func smallMultipart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = try await prepare(
            .uploadMultipart([MultipartFormBodyPart(provider: .data(Data("v".utf8)), name: "k")]))
        guard case .data(let data) = body.transportBody else {
            Issue.record("expected an in-memory upload")
            return
        }
        let boundary = try #require(
            MultipartFormat.boundary(fromContentType: body.request.value(forHTTPHeaderField: "Content-Type")))
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("--\(boundary)\r\n"))
        #expect(body.temporaryFile == nil)
        #expect(try files().isEmpty)
    }

    @Test("the boundary a plugin put in the Content-Type is kept; an invalid one is an error")
    func givenBoundary() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = [MultipartFormBodyPart(provider: .data(Data("v".utf8)), name: "k")]
        var request = self.request
        request.setValue("multipart/form-data; boundary=\"given-by-plugin\"", forHTTPHeaderField: "Content-Type")
        let body = try await prepare(.uploadMultipart(parts), request: request)
        guard case .data(let data) = body.transportBody else {
            Issue.record("expected an in-memory upload")
            return
        }
        #expect(String(decoding: data, as: UTF8.self).hasSuffix("--given-by-plugin--\r\n"))
        #expect(
            body.request.value(forHTTPHeaderField: "Content-Type")
                == "multipart/form-data; boundary=\"given-by-plugin\"")

        request.setValue("multipart/form-data; boundary=bad\"quote", forHTTPHeaderField: "Content-Type")
        await #expect(throws: CourierError.self) { try await prepare(.uploadMultipart(parts), request: request) }
    }

    @Test("a body of 10 MiB or more goes to a file in the transfer directory, which cleanUp removes")
    func largeMultipart() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = Int(MultipartFormat.encodingMemoryThreshold)
        let body = try await prepare(
            .uploadMultipart([MultipartFormBodyPart(provider: .data(Data(count: size)), name: "k")]))
        guard case .file(let url) = body.transportBody else {
            Issue.record("expected an upload from disk")
            return
        }
        #expect(body.temporaryFile == url)
        #expect(try files() == [url.lastPathComponent])
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0 > size)
        body.cleanUp()
        #expect(try files().isEmpty)
    }

    @Test("a cancelled task gets .cancelled and no file is left")
    func cancelled() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await prepare(
                .uploadMultipart([MultipartFormBodyPart(provider: .data(Data(count: 11 << 20)), name: "k")]))
        }
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("a cancelled body was prepared")
            return
        }
        #expect((error as? CourierError)?.isCancelled == true)
        #expect(try files().isEmpty)
    }

    @Test("uploadFile sends the file itself, and needs a readable regular file")
    func uploadFile() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("f")
        try Data("x".utf8).write(to: file)
        let body = try await prepare(.uploadFile(file))
        guard case .file(let url) = body.transportBody else {
            Issue.record("expected an upload from disk")
            return
        }
        #expect(url == file)
        #expect(body.temporaryFile == nil, "the caller's file is never removed")
        #expect(body.request.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        var typed = request
        typed.setValue("image/png", forHTTPHeaderField: "Content-Type")
        #expect(
            try await prepare(.uploadFile(file), request: typed).request.value(forHTTPHeaderField: "Content-Type")
                == "image/png")
        await #expect(throws: CourierError.self) { try await prepare(.uploadFile(directory)) }
        await #expect(throws: CourierError.self) {
            try await prepare(.uploadFile(directory.appendingPathComponent("no")))
        }
    }

    @Test("other tasks keep the request's own body")
    func inline() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = try await prepare(.requestData(Data("x".utf8)))
        guard case .inline = body.transportBody else {
            Issue.record("expected the request's own body")
            return
        }
        #expect(!body.transportBody.isUpload)
    }
}
