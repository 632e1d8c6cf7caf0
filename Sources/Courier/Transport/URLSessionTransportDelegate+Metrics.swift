import Foundation

#if !canImport(FoundationNetworking)
    /// Apple platforms measure each task (`URLSessionTaskMetrics`); the transport keeps the
    /// last transaction's figures for the response's ``TransferMetrics``. swift-corelibs-
    /// foundation never calls this (swift-corelibs-foundation #4988), so on Linux the transport
    /// measures what it can itself (``URLSessionTransport/metrics(of:started:sentBytes:redirects:)``).
    extension URLSessionTransportDelegate {
        func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics)
        {
            let measured = Self.transferMetrics(from: metrics)
            _ = withState(task) { state in state.platformMetrics = measured }
        }

        /// The last transaction's phases, reuse, protocol and byte counts.
        static func transferMetrics(from metrics: URLSessionTaskMetrics) -> TransferMetrics? {
            guard let last = metrics.transactionMetrics.last else { return nil }
            func duration(from start: Date?, to end: Date?) -> TimeInterval? {
                guard let start, let end else { return nil }
                return max(0, end.timeIntervalSince(start))
            }
            var result = TransferMetrics()
            result.domainLookup = duration(from: last.domainLookupStartDate, to: last.domainLookupEndDate)
            result.connect = duration(
                from: last.connectStartDate, to: last.secureConnectionStartDate ?? last.connectEndDate)
            result.secureConnection = duration(from: last.secureConnectionStartDate, to: last.secureConnectionEndDate)
            result.reusedConnection = last.isReusedConnection
            switch last.networkProtocolName {
            case "http/1.1": result.protocolVersion = "1.1"
            case "http/1.0": result.protocolVersion = "1.0"
            case "h2": result.protocolVersion = "2"
            case "h3": result.protocolVersion = "3"
            default: break
            }
            result.bytesSent = last.countOfRequestBodyBytesSent
            result.bytesReceived = last.countOfResponseBodyBytesReceived
            return result
        }
    }
#endif
