import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Tells the app when a request starts and when it ends, to drive an activity indicator.
///
/// ```swift
/// let activity = NetworkActivityPlugin { change, target in
///     switch change {
///     case .began: print("started", target.path)
///     case .ended: print("finished", target.path)
///     }
/// }
/// let provider = Provider<GitHub>(plugins: [activity])
/// ```
///
/// Every `.began` is followed by exactly one `.ended` for the same target, whatever the
/// outcome — success, failure or cancellation. A request that fails before it is sent (a
/// plugin's `prepare` throws, or it is cancelled first) reports neither, although the
/// provider still passes a cancelled one to `didReceive`, as Moya does. The closure runs on whatever thread the
/// request runs on: hop to the main actor yourself to touch UI.
public struct NetworkActivityPlugin: PluginType {
    /// Whether a request started or ended.
    public enum Change: Sendable, Equatable {
        /// The request is about to be sent.
        case began
        /// The request's result arrived.
        case ended
    }

    /// Called with each change and the request's target.
    public typealias ActivityClosure = @Sendable (_ change: Change, _ target: any TargetType) -> Void

    /// Called with each change and the request's target.
    public let networkActivityClosure: ActivityClosure

    /// Creates the plugin.
    public init(networkActivityClosure: @escaping ActivityClosure) {
        self.networkActivityClosure = networkActivityClosure
    }

    /// Reports ``Change/began``.
    public func willSend(_ request: URLRequest, target: any TargetType) {
        networkActivityClosure(.began, target)
    }

    /// Reports ``Change/ended``, for a request that was sent.
    public func didReceive(_ result: Result<Response, CourierError>, target: any TargetType) {
        // A request cancelled before it was sent never reported `.began`.
        guard PluginNotification.requestWasSent else { return }
        networkActivityClosure(.ended, target)
    }
}
