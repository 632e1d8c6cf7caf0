import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("URLSessionTransport.maximumResponseBodySize")
struct URLSessionTransportBoundTests {
    @Test("every initialiser bounds in-memory bodies to 32 MiB unless told otherwise")
    func defaults() {
        #expect(URLSessionTransport.defaultMaximumResponseBodySize == 32 * 1024 * 1024)
        #expect(URLSessionTransport().maximumResponseBodySize == 32 * 1024 * 1024)
        let configuration = URLSessionTransport.defaultConfiguration()
        #expect(URLSessionTransport(configuration: configuration).maximumResponseBodySize == 32 * 1024 * 1024)
    }

    @Test("a chosen bound is kept; a negative one counts as zero")
    func chosen() {
        let configuration = URLSessionTransport.defaultConfiguration()
        #expect(
            URLSessionTransport(configuration: configuration, maximumResponseBodySize: 1024).maximumResponseBodySize
                == 1024)
        #expect(
            URLSessionTransport(configuration: configuration, maximumResponseBodySize: -5).maximumResponseBodySize == 0)
    }

    #if canImport(FoundationNetworking)
        @Test(
            "the delegate queue runs each block before addOperation returns, on the adding thread: no block of a body waits in a queue"
        )
        func deliveryIsInline() {
            let queue = InlineDelegateQueue(label: "test")
            let ran = Locked<[Bool]>([])
            // From many threads at once, as corelibs' callbacks and the session's own work do.
            DispatchQueue.concurrentPerform(iterations: 64) { _ in
                let thread = pthread_self()
                let done = Locked(false)
                queue.addOperation {
                    done.withValue { $0 = pthread_equal(pthread_self(), thread) != 0 }
                }
                let ranInPlace = done.value
                ran.withValue { $0.append(ranInPlace) }
            }
            #expect(ran.value.count == 64)
            #expect(ran.value.allSatisfy { $0 })
        }
    #endif

    @Test(
        "past the bound the delegate keeps nothing more: what it holds never exceeds the bound plus the block in hand"
    )
    func delegateStopsKeepingAtTheBound() throws {
        let bound = 256 * 1024
        let block = 16 * 1024
        let delegate = URLSessionTransportDelegate()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:9/bomb"))
        let task = session.dataTask(with: url)
        let state = URLSessionTransportDelegate.TaskState(
            TransportRequest(urlRequest: URLRequest(url: url)), originalRequest: URLRequest(url: url),
            transferDirectory: FileManager.default.temporaryDirectory, maximumBodySize: bound, resourceTimeout: 60)
        delegate.register(state, for: task)
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Encoding": "gzip"]))
        delegate.urlSession(session, dataTask: task, didReceive: response) { _ in }

        // What a gzip bomb decodes to: 4 MiB in blocks, as libcurl hands them over.
        let zeros = Data(count: block)
        for index in 0..<256 {
            delegate.urlSession(session, dataTask: task, didReceive: zeros)
            let kept = delegate.withState(task) { $0.data.count } ?? 0
            #expect(kept <= bound)
            if index * block > bound { #expect(kept == 0) }
        }
        #expect(delegate.withState(task) { $0.bodyTooLarge } == true)
        #expect(delegate.largestBodyHeld <= bound + block)
        #expect(delegate.largestBodyHeld > bound)
    }
}
