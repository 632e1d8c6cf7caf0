import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hooks into every request a provider sends: change it before it leaves, observe it, and
/// observe or change its result.
///
/// Every hook has a default that does nothing, so a plugin implements only what it needs.
/// Plugins run in the order the provider was given them, for real and stubbed requests
/// alike.
///
/// ```swift
/// struct UserAgentPlugin: PluginType {
///     func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
///         var request = request
///         request.setValue("MyApp/2.1", forHTTPHeaderField: "User-Agent")
///         return request
///     }
/// }
/// ```
///
/// Every hook runs on the actor that made the request (the main actor, for a request made
/// from main-actor code), so a plugin may read the target it is given; a plugin is
/// `Sendable` because one provider serves every caller. Write its conformance on the type's
/// declaration (`struct MyPlugin: PluginType`), as above: in an app whose default isolation is
/// `MainActor`, that keeps the plugin `nonisolated`, as its hooks must be.
public protocol PluginType: Sendable {
    /// Returns the request to send in place of `request`. It is `async`, unlike Moya's, so a
    /// plugin may await a token refresh. Throwing fails the request before anything is sent.
    ///
    /// It runs on the caller's actor. A Moya plugin's synchronous `prepare` satisfies it too.
    nonisolated(nonsending) func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest

    /// Called just before `request` is handed to the transport (or the stub).
    func willSend(_ request: URLRequest, target: any TargetType)

    /// Called with the result, after validation and before ``process(_:target:)``.
    func didReceive(_ result: Result<Response, CourierError>, target: any TargetType)

    /// Returns the result the caller receives in place of `result`.
    func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<
        Response, CourierError
    >
}

extension PluginType {
    /// Returns `request` unchanged.
    public nonisolated(nonsending) func prepare(_ request: URLRequest, target: any TargetType) async throws
        -> URLRequest
    {
        request
    }

    /// Does nothing.
    public func willSend(_ request: URLRequest, target: any TargetType) {}

    /// Does nothing.
    public func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {}

    /// Returns `result` unchanged.
    public func process(_ result: Result<Response, CourierError>, target: any TargetType) -> Result<
        Response, CourierError
    > {
        result
    }
}
