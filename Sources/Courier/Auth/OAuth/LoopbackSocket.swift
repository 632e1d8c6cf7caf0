import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few socket calls the loopback listener needs: a listening socket on `127.0.0.1` and an
/// ephemeral port, accepting, reading a request head, writing an answer.
enum LoopbackSocket {
    #if canImport(Darwin)
        private static let stream = SOCK_STREAM
    #else
        private static let stream = Int32(SOCK_STREAM.rawValue)
    #endif

    /// A socket listening on `127.0.0.1:0` and its port, or the system's reason.
    static func listen() -> Result<(descriptor: Int32, port: Int), OAuthError> {
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { return .failure(.listenerFailed(reason: "socket: \(lastError)")) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc_listen(descriptor, 8) == 0 else {
            let reason = lastError
            close(descriptor)
            return .failure(.listenerFailed(reason: "bind to 127.0.0.1: \(reason)"))
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let reason = lastError
            close(descriptor)
            return .failure(.listenerFailed(reason: "getsockname: \(reason)"))
        }
        return .success((descriptor, Int(UInt16(bigEndian: address.sin_port))))
    }

    private static func Glibc_listen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.listen(descriptor, backlog)
        #elseif canImport(Musl)
            Musl.listen(descriptor, backlog)
        #else
            Darwin.listen(descriptor, backlog)
        #endif
    }

    /// The next connection, or `nil` once the listening socket is shut down.
    static func accept(_ descriptor: Int32) -> Int32? {
        while true {
            #if canImport(Glibc)
                let connection = Glibc.accept(descriptor, nil, nil)
            #elseif canImport(Musl)
                let connection = Musl.accept(descriptor, nil, nil)
            #else
                let connection = Darwin.accept(descriptor, nil, nil)
            #endif
            if connection >= 0 {
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                // A browser that connects and sends nothing must not hold the listener.
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                _ = setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                return connection
            }
            if errno != EINTR && errno != ECONNABORTED { return nil }
        }
    }

    /// The request head (up to the blank line), at most `limit` bytes; `nil` if the peer
    /// sent no complete head.
    static func readHead(_ descriptor: Int32, limit: Int = 16 * 1024) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while bytes.count < limit {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
            if let end = bytes.firstRange(of: [13, 10, 13, 10]) {
                return String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
            }
        }
        return nil
    }

    /// Writes `status` and an HTML `page`, then closes the connection.
    static func answer(_ descriptor: Int32, status: String, page: String) {
        let body = Array(page.utf8)
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            sent += count
        }
        close(descriptor)
    }

    /// Makes a blocked `accept` on another thread return; that thread closes the socket.
    static func stopAccepting(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes a socket no thread is accepting on.
    static func shutDown(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
