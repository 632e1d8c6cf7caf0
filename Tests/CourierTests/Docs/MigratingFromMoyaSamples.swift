import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The Courier side of MigratingFromMoya.md, kept in sync by DocSamplesSyncTests.

enum MigratingFromMoya {  // sample scaffold
    enum Zen: TargetType {
        case zen
        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String { "zen" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    static func printZen(_ provider: Provider<Zen>) async {
        do {
            print(try await provider.request(.zen).mapString())
        } catch {
            print(error.description)
        }
    }

    struct Timing: PluginType {
        func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
            request
        }
        func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {}
    }
}  // sample scaffold

extension MigratingFromMoya {
    @Suite("Migrating from Moya samples")
    struct Samples {
        @Test("the migrated target and plugin run through a provider")
        func migrated() async throws {
            let transport = ScriptedTransport()
            transport.enqueue(.text("Approachable is better than simple."), for: .get("/zen"))
            let provider = Provider<Zen>.scripted(transport, plugins: [Timing()])

            await printZen(provider)

            #expect(transport.requests.map { $0.url?.absoluteString } == ["https://api.github.com/zen"])
        }
    }
}
