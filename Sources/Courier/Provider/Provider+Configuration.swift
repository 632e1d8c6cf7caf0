import Dispatch
import Foundation

extension Provider {
    /// Everything a provider is made of: the arguments of its initializer and what the request
    /// path needs from them, worked out once. ``Provider`` and ``RefreshableProvider`` both make
    /// one, so a new option is handled here, once, and each public initializer only passes it
    /// on.
    struct Configuration: Sendable {
        let endpointClosure: EndpointClosure
        let requestClosure: RequestClosure
        let stubClosure: StubClosure
        let callbackQueue: DispatchQueue?
        let transport: any HTTPTransport
        let retryPolicy: RetryPolicy?
        /// The plugins as ``Provider/plugins`` lists them: a ``RefreshableProvider``'s signing
        /// plugin first, then the caller's.
        let listedPlugins: [any PluginType]
        /// The plugins whose four Moya hooks run, in order. A ``RefreshableProvider``'s signing
        /// plugin is not among them: its re-authentication stage signs (with the plugin's
        /// settings) before any `prepare` runs.
        let hooks: [any PluginType]
        /// The stages around each send, outermost first: the subclass's own (re-authentication),
        /// the ``retryPolicy``'s, then every plugin that is a ``RequestInterceptor``, in order.
        let interceptors: [any RequestInterceptor]
        /// The shared calls, when `trackInflights` is on.
        let inflights: InflightRequests?
        /// The per-host limit, when `maxRequestsPerHost` is set.
        let hostGate: HostGate?

        /// - Parameters:
        ///   - plugins: the caller's plugins.
        ///   - signing: a plugin that ``Provider/plugins`` lists first and whose work `stage`
        ///     does (a ``RefreshableProvider``'s ``AuthPlugin``), with that stage, which goes
        ///     around everything else.
        init(
            endpointClosure: @escaping EndpointClosure, requestClosure: @escaping RequestClosure,
            stubClosure: @escaping StubClosure, callbackQueue: DispatchQueue?, transport: any HTTPTransport,
            retryPolicy: RetryPolicy?, plugins: [any PluginType], trackInflights: Bool, maxRequestsPerHost: Int?,
            signing: (plugin: any PluginType, stage: any RequestInterceptor)? = nil
        ) {
            self.endpointClosure = endpointClosure
            self.requestClosure = requestClosure
            self.stubClosure = stubClosure
            self.callbackQueue = callbackQueue
            self.transport = transport
            self.retryPolicy = retryPolicy
            self.hooks = plugins
            self.listedPlugins = signing.map { [$0.plugin] + plugins } ?? plugins
            var interceptors: [any RequestInterceptor] = []
            if let signing { interceptors.append(signing.stage) }
            if let retryPolicy { interceptors.append(RetryStage(policy: retryPolicy)) }
            // A plugin takes part around the send by conforming to the public protocol: the
            // provider looks for the capability, never for a type of its own.
            for plugin in plugins {
                if let interceptor = plugin as? any RequestInterceptor { interceptors.append(interceptor) }
            }
            self.interceptors = interceptors
            self.inflights = trackInflights ? InflightRequests() : nil
            self.hostGate = maxRequestsPerHost.map(HostGate.init(limit:))
        }
    }
}
