// swift-format-ignore-file
// (The docs' code blocks appear here line for line, formatted as the docs show them.)
import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The Courier side of MigratingFromMoya.md's "From CombineMoya", kept in sync by
// DocSamplesSyncTests.

enum MigratingFromCombine {  // sample scaffold
    enum Account: TargetType {
        case profile
        case settings

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String {
            switch self {
            case .profile: "me"
            case .settings: "me/settings"
            }
        }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    struct Profile: Decodable, Sendable {
        let name: String
    }

    struct Settings: Decodable, Sendable {
        let theme: String
    }

    protocol ProfileLoading: Sendable {
        func profile() async throws(CourierError) -> Profile
    }

    struct ProfileService: ProfileLoading {
        let provider: Provider<Account>

        func profile() async throws(CourierError) -> Profile {
            let profile = try await provider.request(.profile, as: Profile.self)
            print("loaded", profile.name)
            return profile
        }
    }

    struct PreviewProfiles: ProfileLoading {
        func profile() async throws(CourierError) -> Profile {
            Profile(name: "Ada")
        }
    }

    actor SettingsStore {
        private let provider: Provider<Account>
        private var inFlight: Task<Settings, any Error>?

        init(provider: Provider<Account>) {
            self.provider = provider
        }

        func settings() async throws -> Settings {
            if let inFlight { return try await inFlight.value }
            let provider = provider
            let load = Task { try await provider.request(.settings, as: Settings.self) }
            inFlight = load
            defer { inFlight = nil }
            return try await load.value
        }
    }

    /// A callback API an app still has.  // sample scaffold
    final class LegacyProfileLoader: Sendable {  // sample scaffold
        func load(_ completion: @escaping @Sendable (Result<Profile, any Error>) -> Void) {  // sample scaffold
            completion(.success(Profile(name: "Ada")))  // sample scaffold
        }  // sample scaffold
    }  // sample scaffold

    static func parse(_ data: Data) throws -> Profile {
        let result = Result { try JSONDecoder().decode(Profile.self, from: data) }
        return try result.get()
    }

    static func load(from legacyLoader: LegacyProfileLoader) async throws -> Profile {
        try await withCheckedThrowingContinuation { continuation in
            legacyLoader.load { result in continuation.resume(with: result) }
        }
    }
}  // sample scaffold
