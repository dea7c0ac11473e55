#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking-with-deadline socket calls for `HTTPClient`: the socket itself is non-blocking, and every wait is a
/// `poll` bounded by the caller's deadline, so no call can hang past it. Only worker threads call these.
enum ClientSocket {
    /// IPv4 addresses for a host, in the resolver's order (`getaddrinfo`, which may block on DNS).
    static func resolve(_ host: String, port: Int) throws(HTTPClientError) -> [sockaddr_in] {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { throw .unresolvable(host: host) }
        defer { freeaddrinfo(first) }
        var addresses: [sockaddr_in] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if current.pointee.ai_family == AF_INET, let address = current.pointee.ai_addr {
                addresses.append(UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self))
            }
            node = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw .unresolvable(host: host) }
        return addresses
    }

    /// A connected non-blocking socket with `TCP_NODELAY`, trying each address until one answers or time runs out.
    static func connect(to endpoint: HTTPClient.Endpoint, deadline: ContinuousClock.Instant) throws(HTTPClientError) -> Int32 {
        var lastError = HTTPClientError.connectFailed(errno: ECONNREFUSED)
        for address in try resolve(endpoint.host, port: endpoint.port) {
            do {
                return try connect(address, deadline: deadline)
            } catch .timedOut(let phase) {
                throw .timedOut(phase)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func connect(_ address: sockaddr_in, deadline: ContinuousClock.Instant) throws(HTTPClientError) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .connectFailed(errno: errno) }
        var address = address
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            guard code == EINPROGRESS || code == EINTR else {
                Glibc.close(fd)
                throw .connectFailed(errno: code)
            }
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else {
                Glibc.close(fd)
                throw .timedOut(.connect)
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else {
                Glibc.close(fd)
                throw .connectFailed(errno: failure)
            }
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Sends everything before the deadline. On failure, `sent` says how many bytes went out (for the retry rule).
    static func send(_ fd: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant, sent: inout Int) throws(HTTPClientError) {
        while sent < bytes.count {
            let offset = sent
            let written = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written > 0 {
                sent += written
                continue
            }
            let code = errno
            if written < 0, code == EINTR { continue }
            guard written < 0, code == EAGAIN || code == EWOULDBLOCK else { throw .sendFailed(errno: written < 0 ? code : EPIPE) }
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { throw .timedOut(.send) }
        }
    }

    /// Reads what is there into `buffer`, waiting until the deadline (forever when nil). Returns 0 at end of input.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant?) throws(HTTPClientError) -> Int {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw .receiveFailed(errno: code) }
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { throw .timedOut(.receive) }
        }
    }

    /// Whether an idle pooled connection still looks usable: nothing to read (no close, no stray bytes), no error.
    static func isQuiet(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }

    /// Waits for `events` on `fd` until the deadline (forever when nil); false when the deadline passed first.
    /// Errors and hang-ups count as ready: the following call reports them.
    static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant?) -> Bool {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { return false }
                timeout = Int32(clamping: left.millisecondsForTimers)
            }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, timeout)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }
        }
    }
}
