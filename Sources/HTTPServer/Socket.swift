import CLinux

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, throwing wrappers over the POSIX socket calls the server needs.
enum Socket {
    struct Failure: Error, Equatable, CustomStringConvertible {
        let call: String
        let errno: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
    }

    /// A non-blocking listening TCP socket bound to `host:port`. `reusePort` lets one socket per event loop share
    /// the port, so the kernel spreads new connections across loops.
    static func listen(host: String, port: Int, backlog: Int32 = 1024, reusePort: Bool) throws(Failure) -> (fd: Int32, port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let resolved = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, resolved, &address.sin_addr) == 1 else { throw Failure(call: "inet_pton(\(host))", errno: EINVAL) }
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if reusePort { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(call: "bind(\(host):\(port))", errno: code)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(call: "listen", errno: code)
        }
        return (fd, boundPort(fd))
    }

    static func boundPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// What one `accept` gave.
    enum Accepted {
        /// A non-blocking socket with `TCP_NODELAY`; `peer` is `address:port`, `client` the address alone.
        case connection(fd: Int32, peer: String, client: String)
        /// Nothing pending.
        case none
        /// The process or system is out of descriptors or socket memory (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`):
        /// the connection stays queued, and the listener stays readable until a descriptor frees.
        case exhausted(errno: Int32)
    }

    /// Accepts one pending connection (see the README's performance notes for `TCP_NODELAY`). A connection reset
    /// before it was accepted (`ECONNABORTED`) or an interrupted call is skipped, not reported.
    static func accept(_ listener: Int32) -> Accepted {
        while true {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    specd_accept4(listener, $0, &length)
                }
            }
            guard fd >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .exhausted(errno: errno)
                default: return .none
                }
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let client = hostDescription(address)
            return .connection(fd: fd, peer: "\(client):\(UInt16(bigEndian: address.sin_port))", client: client)
        }
    }

    /// Sends `bytes` from `offset` on a non-blocking socket until all are sent, the socket is full, or it fails
    /// (`EINTR` retried). Returns how far it got and whether the socket failed.
    /// Through `specd_send`: no cancellation point (CLinux.h).
    static func send(_ fd: Int32, _ bytes: [UInt8], from offset: Int) -> (offset: Int, failed: Bool) {
        bytes.withUnsafeBytes { send(fd, $0, from: offset) }
    }

    /// The same for bytes lent in place: a connection's output buffer, which passed as an array was retained and
    /// released around every send.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, from offset: Int) -> (offset: Int, failed: Bool) {
        var offset = offset
        while offset < bytes.count {
            let written = specd_send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return (offset, !(written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
            }
        }
        return (offset, false)
    }

    static func hostDescription(_ address: sockaddr_in) -> String {
        var copy = address.sin_addr
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &copy, &text, socklen_t(INET_ADDRSTRLEN))
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Whether an address is on the loopback network (127.0.0.0/8), where an unauthenticated daemon may listen.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.")
    }
}
