// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import CourierPlugins
import CourierTesting
import Foundation
import Testing

// The samples of Plugins.md and the README's Plugins section, kept in sync by
// DocSamplesSyncTests (in CourierTests), and tests that they do what the text says. (The
// imports come right before the first plugin, as in the article's first sample.)

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum PluginsArticle {  // sample scaffold
    struct AppVersionPlugin: PluginType {
        let version: String

        func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
            var request = request
            request.setValue(version, forHTTPHeaderField: "X-App-Version")
            return request
        }
    }

    enum GitHub: TargetType {
        case zen
        var baseURL: URL { URL(string: "https://api.github.com")! }
        var path: String { "zen" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    static func bundledPlugins() -> [any PluginType] {  // sample scaffold
        let logger = NetworkLoggerPlugin(
            configuration: .init(
                output: { target, lines in
                    for line in lines { print(line) }
                },
                logOptions: .verbose))
        let provider = Provider<GitHub>(plugins: [logger])

        let redaction = NetworkLoggerPlugin.Redaction.default
            .adding(headers: ["X-Tenant"], keys: ["otp"])
        let quietLogger = NetworkLoggerPlugin(
            configuration: .init(logOptions: .default, redaction: redaction, maximumBodyLength: 1024))

        #if DEBUG
            let curlLogger = NetworkLoggerPlugin(
                configuration: .init(logOptions: .formatRequestAscURL, redaction: .none))
            _ = curlLogger  // sample scaffold
        #endif

        let activity = NetworkActivityPlugin { change, target in
            switch change {
            case .began: print("loading", target.path)
            case .ended: print("done", target.path)
            }
        }

        let token = AccessTokenPlugin { _ in "my-static-token" }

        let credentials = CredentialsPlugin { target in
            target.path.hasPrefix("admin")
                ? URLCredential(user: "admin", password: "secret", persistence: .none)
                : nil
        }
        _ = provider  // sample scaffold
        return [logger, quietLogger, activity, token, credentials]  // sample scaffold
    }  // sample scaffold

    static func readme() -> Provider<GitHub> {  // sample scaffold
        let logger = NetworkLoggerPlugin(configuration: .init(logOptions: [.verbose, .formatRequestAscURL]))
        let logged = Provider<GitHub>(plugins: [logger])
        return logged  // sample scaffold
    }  // sample scaffold
}  // sample scaffold

extension PluginsArticle {
    @Suite("Plugins article samples")
    struct Samples {
        @Test("AppVersionPlugin sets its header on every request")
        func appVersion() async throws {
            let transport = ScriptedTransport()
            transport.always(.status(200), for: .any)
            let provider = Provider<GitHub>.scripted(transport, plugins: [AppVersionPlugin(version: "2.1")])

            _ = try await provider.request(.zen)

            #expect(transport.lastRequest?.value(forHTTPHeaderField: "X-App-Version") == "2.1")
        }

        @Test("the article's plugins are what it says they are")
        func bundled() throws {
            let plugins = bundledPlugins()
            #expect(plugins.count == 5)
            let quiet = try #require(plugins[1] as? NetworkLoggerPlugin)
            #expect(quiet.configuration.redaction.isSecret(header: "x-tenant"))
            #expect(quiet.configuration.redaction.isSecret(header: "x-api-key"))
            #expect(quiet.configuration.redaction.isSecret(key: "otp"))
            #expect(quiet.configuration.redaction.isSecret(key: "refresh_token"))
            #expect(quiet.configuration.maximumBodyLength == 1024)
            let logger = try #require(plugins[0] as? NetworkLoggerPlugin)
            #expect(logger.configuration.logOptions == .verbose)
            let readmeLogger = try #require(readme().plugins.first as? NetworkLoggerPlugin)
            #expect(readmeLogger.configuration.logOptions.contains(.formatRequestAscURL))
        }

        @Test("the credentials sample signs admin paths only")
        func credentials() async throws {
            struct Admin: TargetType {
                let path: String
                var baseURL: URL { URL(string: "https://api.example.com")! }
                var method: HTTPMethod { .get }
                var task: RequestTask { .requestPlain }
                var headers: [String: String]? { nil }
            }
            let transport = ScriptedTransport()
            transport.always(.status(200), for: .any)
            let plugin = try #require(bundledPlugins()[4] as? CredentialsPlugin)
            let provider = Provider<Admin>.scripted(transport, plugins: [plugin])

            _ = try await provider.request(Admin(path: "admin/users"))
            _ = try await provider.request(Admin(path: "public"))

            #expect(
                transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == [
                    "Basic " + Data("admin:secret".utf8).base64EncodedString(), nil,
                ])
        }
    }
}
