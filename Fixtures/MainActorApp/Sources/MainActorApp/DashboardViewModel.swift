import Courier
import Foundation
import Observation

/// A post as `GET /posts` lists it.
public struct PostSummary: Decodable, Equatable {
    /// The post's title.
    public var title: String
}

/// Two requests at once from a main-actor view model, as the Concurrency article shows them:
/// `async let` and a task group whose children call the model's own (main-actor) methods, and
/// a session watcher cancelled in an `isolated deinit`.
@Observable
public final class DashboardViewModel {
    /// The signed-in user, once loaded.
    public var profile: Profile?
    /// The first page of posts.
    public var posts: [PostSummary] = []
    /// Whether the session ended and the login screen should show.
    public var showsLogin = false

    private let provider: RefreshableProvider<API>
    @ObservationIgnored private var watcher: Task<Void, Never>?

    /// A model that watches `session` for its end.
    public init(provider: RefreshableProvider<API>, session: AuthSession) {
        self.provider = provider
        let events = session.events
        watcher = Task { [weak self] in
            for await event in events where event == .sessionExpired {
                self?.showsLogin = true
            }
        }
    }

    isolated deinit {
        watcher?.cancel()
    }

    /// The profile and the first page of posts, in flight together (`async let`).
    public func load() async throws {
        async let me = loadProfile()
        async let firstPage = loadPosts(page: 1)
        (profile, posts) = try await (me, firstPage)
    }

    /// The same with a task group.
    public func loadInAGroup() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.showProfile() }
            group.addTask { try await self.showPosts() }
            try await group.waitForAll()
        }
    }

    private func showProfile() async throws {
        profile = try await loadProfile()
    }

    private func showPosts() async throws {
        posts = try await loadPosts(page: 1)
    }

    private func loadProfile() async throws(CourierError) -> Profile {
        try await provider.request(.me, as: Profile.self)
    }

    private func loadPosts(page: Int) async throws(CourierError) -> [PostSummary] {
        try await provider.request(.posts(page: page), as: [PostSummary].self)
    }
}
