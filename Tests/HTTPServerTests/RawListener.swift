import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback listener that runs a script per accepted connection on its own thread, for client tests that need a
/// server misbehaving in exact ways (stalling, closing mid-body, sending garbage).
final class RawListener: Sendable {
    /// One accepted connection, as a script sees it.
    struct Peer {
        let fd: Int32

        /// Reads until a whole request head (and a `Content-Length` body) arrived; nil at end of input.
        func readRequest() -> String? {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let text = String(decoding: bytes, as: UTF8.self)
                if let end = text.range(of: "\r\n\r\n") {
                    let head = String(text[..<end.lowerBound])
                    let length =
                        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    if text.utf8.count >= text.distance(from: text.startIndex, to: end.upperBound) + length { return text }
                }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return nil }
                bytes += chunk[0..<count]
            }
        }

        func write(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    let port: Int
    private let fd: Int32
    private let listenerClosed = DispatchSemaphore(value: 0)
    private let state = Mutex<(accepted: Int, requests: [String], stopped: Bool)>((0, [], false))

    init(script: @escaping @Sendable (Peer, RawListener) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw TestClientFailure.bind }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let listenerFD = fd
        let closed = listenerClosed
        // This thread closes the listening socket itself, after its last `accept`: closed by `stop` while the thread
        // was between two calls, the descriptor's number could go to another test's socket, and this thread would
        // accept (and then cut) that test's connections.
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listenerFD, nil, nil)
                if client < 0 {
                    close(listenerFD)
                    closed.signal()
                    return
                }
                if state.withLock({ $0.stopped }) {
                    close(client)
                    close(listenerFD)
                    closed.signal()
                    return
                }
                state.withLock { $0.accepted += 1 }
                Thread.detachNewThread {
                    script(Peer(fd: client), self)
                    close(client)
                }
            }
        }
    }

    var acceptedCount: Int { state.withLock { $0.accepted } }
    var requests: [String] { state.withLock { $0.requests } }

    func record(_ request: String) { state.withLock { $0.requests.append(request) } }

    func stop() {
        let already = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !already else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        listenerClosed.wait()
    }
}

enum TestClientFailure: Error { case bind }
