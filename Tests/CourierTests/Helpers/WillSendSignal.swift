import Courier
import CourierTesting
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Counts the requests that are about to be sent (or answered by a stub): its `willSend` is
/// the last hook before the transport or stub, so a test may wait for it and then cancel a
/// request known to be under way.
struct WillSendSignal: PluginType {
    let counter: CallCounter

    func willSend(_ request: URLRequest, target: any TargetType) {
        counter.increment()
    }
}
