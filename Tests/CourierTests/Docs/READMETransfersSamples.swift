// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's "Uploads and downloads" sample, kept in sync by DocSamplesSyncTests.
// Compiled, not run: it talks to an example host. The same code runs against a scripted
// transport and stubs in Tests/CourierTests/Transfers/ReadmeTransferExampleTests.swift.

enum READMETransfers {  // sample scaffold
    enum Media: TargetType {
        case upload(photo: URL, caption: String)
        case original(id: String, to: URL)

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String {
            switch self {
            case .upload: "photos"
            case .original(let id, _): "photos/\(id)/original"
            }
        }
        var method: HTTPMethod {
            switch self {
            case .upload: .post
            case .original: .get
            }
        }
        var task: RequestTask {
            switch self {
            case .upload(let photo, let caption):
                .uploadMultipart([
                    MultipartFormBodyPart(provider: .data(Data(caption.utf8)), name: "caption"),
                    MultipartFormBodyPart(provider: .file(photo), name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg"),
                ])
            case .original(_, let destination):
                .downloadDestination { _, _ in (destination, [.removePreviousFile, .createIntermediateDirectories]) }
            }
        }
        var headers: [String: String]? { nil }
    }

    static func example(photoURL: URL, destination: URL) async throws {  // sample scaffold

        let media = Provider<Media>()

        // Upload with progress; the last element carries the response.
        for try await step in media.requestWithProgress(.upload(photo: photoURL, caption: "Lisbon")) {
            if let response = step.response {
                print("uploaded:", response.statusCode)
            } else {
                print("\(Int(step.progress * 100)) % — \(step.completedBytes) of \(step.totalBytes ?? 0) bytes sent")
            }
        }

        // Download to a file, Moya's way; the response's data is empty, the file is at its destination.
        media.request(.original(id: "42", to: destination), progress: { step in
            print("\(Int(step.progress * 100)) %")
        }) { result in
            if case .success(let response) = result { print("saved to", response.fileURL!.path) }
        }
    }  // sample scaffold
}  // sample scaffold

@Suite("README: uploads and downloads sample")
struct READMETransfersSample {
    @Test("the sample's targets build the requests the README describes")
    func targets() throws {
        let upload = READMETransfers.Media.upload(photo: URL(fileURLWithPath: "/tmp/p.jpg"), caption: "c")
        #expect(upload.method == .post)
        let original = READMETransfers.Media.original(id: "42", to: URL(fileURLWithPath: "/tmp/42.jpg"))
        #expect(original.path == "photos/42/original")
        guard case .downloadDestination = original.task else {
            Issue.record("the original is not a download")
            return
        }
    }
}
