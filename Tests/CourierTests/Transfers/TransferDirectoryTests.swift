import Foundation
import Testing

@testable import Courier

/// The temporary files of transfers, and the error that says one could not be made.
@Suite("TransferDirectory")
struct TransferDirectoryTests {
    @Test("a download whose temporary file cannot be created fails with a transfer error, not a multipart one")
    func downloadFileCreationFails() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID())")
        #expect(throws: TransferDirectory.FileCreationFailure(fileNamePrefix: "courier-download")) {
            _ = try DownloadFile(in: missing)
        }
        let failure = TransferDirectory.FileCreationFailure(fileNamePrefix: "courier-download")
        #expect(
            failure.localizedDescription
                == "Cannot create the temporary file courier-download-… in the transfer directory.")
        #expect(!failure.description.contains("multipart"))
    }

    @Test("a large multipart body whose temporary file cannot be created fails with the same error, naming its file")
    func multipartFileCreationFails() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID())")
        let parts = [MultipartFormBodyPart(provider: .data(Data("x".utf8)), name: "field")]
        #expect(throws: TransferDirectory.FileCreationFailure(fileNamePrefix: "courier-multipart")) {
            _ = try MultipartFormat.writeToTemporaryFile(parts, boundary: "b", in: missing)
        }
    }

    @Test("a created file is readable and writable by the user only, and named after its kind")
    func createdFileIsPrivate() throws {
        let directory = FileManager.default.temporaryDirectory
        let (url, handle) = try TransferDirectory.createFile(prefix: "courier-download", in: directory)
        defer {
            try? handle.close()
            try? FileManager.default.removeItem(at: url)
        }
        #expect(url.lastPathComponent.hasPrefix("courier-download-"))
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }
}
