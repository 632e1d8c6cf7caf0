// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The samples of TargetsAndTasks.md, kept in sync by DocSamplesSyncTests, and tests that
// every task sends what the article says.

enum TargetsAndTasks {  // sample scaffold
    struct Resource: TargetType {
        let baseURL: URL
        let path: String
        var method: HTTPMethod = .get
        var task: RequestTask = .requestPlain
        var headers: [String: String]? = nil
    }

    enum Store: TargetType {
        case list(page: Int)
        case create(Product)
        case login(user: String, password: String)
        case rename(id: Int, name: String)
        case photo(id: Int, jpeg: Data)
        case report(URL)

        var baseURL: URL { URL(string: "https://store.example.com/api")! }
        var path: String {
            switch self {
            case .list, .create: "products"
            case .login: "oauth/token"
            case .rename(let id, _): "products/\(id)"
            case .photo(let id, _): "products/\(id)/photo"
            case .report: "reports/latest"
            }
        }
        var method: HTTPMethod {
            switch self {
            case .list, .report: .get
            case .create, .login, .photo: .post
            case .rename: .patch
            }
        }
        var task: RequestTask {
            switch self {
            case .list(let page):
                // GET, so URLEncoding.default puts them in the query: ?page=2
                .requestParameters(parameters: ["page": page], encoding: URLEncoding.default)
            case .create(let product):
                // Any Encodable & Sendable value, as a JSON body
                .requestJSONEncodable(product)
            case .login(let user, let password):
                // A form body: grant_type=password&username=…&password=…
                .requestParameters(
                    parameters: ["grant_type": "password", "username": user, "password": password],
                    encoding: URLEncoding.httpBody)
            case .rename(_, let name):
                // A JSON body and a query string together
                .requestCompositeParameters(
                    bodyParameters: ["name": name], bodyEncoding: JSONEncoding.default,
                    urlParameters: ["notify": true])
            case .photo(_, let jpeg):
                .uploadMultipart([
                    MultipartFormBodyPart(
                        provider: .data(jpeg), name: "photo", fileName: "photo.jpg",
                        mimeType: "image/jpeg")
                ])
            case .report(let destination):
                .downloadDestination { _, _ in
                    (destination, [.createIntermediateDirectories, .removePreviousFile])
                }
            }
        }
        var headers: [String: String]? { nil }
    }

    struct Product: Codable, Sendable {
        let name: String
        let price: Int
    }

    static func downloadReport(with provider: Provider<Store>, to file: URL) async throws {
        for try await step in provider.requestWithProgress(.report(file)) {
            if let response = step.response {
                print("saved to", response.fileURL?.path ?? "?")
            } else {
                print("\(Int(step.progress * 100)) %")
            }
        }
    }

    static func uploadPhoto(with provider: Provider<Store>, id: Int, jpeg: Data) -> any Cancellable {
        provider.request(
            .photo(id: id, jpeg: jpeg),
            progress: { step in print("\(step.completedBytes) of \(step.totalBytes ?? 0) bytes sent") },
            completion: { result in print(result.map(\.statusCode)) })
    }
}  // sample scaffold

extension TargetsAndTasks {
    @Suite("Targets and tasks samples")
    struct Samples {
        let transport = ScriptedTransport()
        var provider: Provider<Store> { .scripted(transport) }

        init() {
            transport.always(.status(200), for: .any)
        }

        private func body(of target: Store) async throws -> (URLRequest, String) {
            _ = try await provider.request(target)
            let request = try #require(transport.lastRequest)
            return (request, String(decoding: request.httpBody ?? Data(), as: UTF8.self))
        }

        @Test("a struct target works like an enum one")
        func resource() async throws {
            let provider = Provider<Resource>.scripted(transport)
            _ = try await provider.request(Resource(baseURL: URL(string: "https://cdn.example.com")!, path: "a/b"))
            #expect(transport.lastRequest?.url?.absoluteString == "https://cdn.example.com/a/b")
        }

        @Test("each task sends what the article says")
        func tasks() async throws {
            let (list, _) = try await body(of: .list(page: 2))
            #expect(list.url?.absoluteString == "https://store.example.com/api/products?page=2")

            let (create, createBody) = try await body(of: .create(Product(name: "Mug", price: 12)))
            let product = try JSONDecoder().decode(Product.self, from: Data(createBody.utf8))
            #expect(product.name == "Mug" && product.price == 12)
            #expect(create.value(forHTTPHeaderField: "Content-Type") == "application/json")

            let (_, loginBody) = try await body(of: .login(user: "ada", password: "pw"))
            #expect(loginBody == "grant_type=password&password=pw&username=ada")

            let (rename, renameBody) = try await body(of: .rename(id: 3, name: "Cup"))
            #expect(rename.url?.absoluteString == "https://store.example.com/api/products/3?notify=1")
            #expect(rename.httpMethod == "PATCH")
            #expect(renameBody == #"{"name":"Cup"}"#)

            let (photo, photoBody) = try await body(of: .photo(id: 3, jpeg: Data("JPEG".utf8)))
            #expect(
                photo.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(photoBody.contains(#"name="photo"; filename="photo.jpg""#))
        }

        @Test("downloadReport saves the file and ends with the response")
        func download() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-docs-\(UUID())")
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("reports/latest.csv")
            let transport = ScriptedTransport()
            transport.enqueue(.text("a,b\n1,2\n"), for: .get("/reports/latest"))

            try await downloadReport(with: .scripted(transport), to: file)

            #expect(try String(contentsOf: file, encoding: .utf8) == "a,b\n1,2\n")
        }
    }
}
