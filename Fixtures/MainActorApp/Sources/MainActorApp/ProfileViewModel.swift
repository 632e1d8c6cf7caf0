import Courier
import Foundation
import Observation

/// A view model as a new app writes it: `@Observable`, main-actor isolated by default.
@Observable
public final class ProfileViewModel {
    public var profile: Profile?
    public var isLoading = false
    public var errorMessage: String?
    public var posted = false

    private let provider: RefreshableProvider<API>

    public init(provider: RefreshableProvider<API>) {
        self.provider = provider
    }

    /// async/await.
    public func load() async {
        isLoading = true
        defer { isLoading = false }
        do {
            profile = try await provider.request(.me, as: Profile.self)
        } catch {
            errorMessage = error.localizedDescription
        }
    }

    /// Moya's completion form; `done` is called once the view model is updated.
    public func loadWithCompletion(done: @escaping () -> Void) {
        isLoading = true
        provider.request(.me) { result in
            self.isLoading = false
            switch result {
            case .success(let response):
                self.profile = try? response.map(Profile.self)
            case .failure(let error):
                self.errorMessage = error.localizedDescription
            }
            done()
        }
    }

    /// Sends an `Encodable` body.
    public func post(title: String) async {
        do {
            _ = try await provider.request(.createPost(NewPost(title: title, body: "…")))
            posted = true
        } catch {
            errorMessage = error.localizedDescription
        }
    }
}
