import Foundation

/// The app's settings, as a new app writes them: main-actor isolated by default.
enum AppConfig {
    static let apiBaseURL = URL(string: "https://api.example.com/v1")!
    static let authBaseURL = URL(string: "https://auth.example.com")!
    static let clientID = "ios-app"
}
