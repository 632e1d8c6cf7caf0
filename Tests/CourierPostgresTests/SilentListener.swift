// Compiled only with the PostgreSQLStore trait (see Package.swift); empty without it.
#if PostgreSQLStore

    import CourierTestServer
    import Foundation
    import Testing

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A loopback port whose connections the kernel completes but nobody ever answers: a
    /// database that hangs.
    final class SilentListener: Sendable {
        let port: Int
        private let descriptor: Int32

        init() throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestPostgresError(description: "socket() failed") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let descriptor = descriptor
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                        && listen(descriptor, 64) == 0
                }
            }
            guard bound else { throw TestPostgresError(description: "bind() or listen() failed") }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        /// Stops listening.
        func close() {
            _ = Glibc.close(descriptor)
        }
    }

#endif
