import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A webhook receiver on a loopback port the test controls: it answers with a status, stalls without answering,
/// or is down (nothing listening on its port), and keeps every request it read. It can go down and come back up on
/// the same port.
public final class WebhookReceiver: @unchecked Sendable {
    public enum Mode: Sendable {
        case answer(Int)
        case stall
    }

    public struct Request: Sendable {
        public let head: String
        public let body: [UInt8]

        public func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
            }
            return nil
        }
    }

    private struct State {
        var mode: Mode = .answer(200)
        var requests: [Request] = []
        var listener: Int32 = -1
        /// Signalled by the accept thread once it has closed `listener` (see `down`).
        var listenerClosed: DispatchSemaphore?
        var peers: Set<Int32> = []
        var generation = 0
    }

    private let state = Mutex(State())
    public private(set) var port = 0

    public init(mode: Mode = .answer(200)) throws {
        state.withLock { $0.mode = mode }
        try up()
    }

    public var mode: Mode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    /// Requests it answered 2xx.
    public var delivered: [Request] { state.withLock { $0.requests } }

    public func up() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ReceiverFailure.bind(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        let closed = DispatchSemaphore(value: 0)
        state.withLock {
            $0.listener = fd
            $0.listenerClosed = closed
        }
        // The accept thread closes the listening socket itself, after its last `accept`: closed by `down` while the
        // thread was between two calls, the descriptor's number could go to another test's socket, and this thread
        // would accept (and then cut) that test's connections.
        Thread.detachNewThread { [self] in
            while true {
                let peer = accept(fd, nil, nil)
                if peer < 0 {
                    close(fd)
                    closed.signal()
                    return
                }
                state.withLock { _ = $0.peers.insert(peer) }
                Thread.detachNewThread { [self] in serve(peer) }
            }
        }
    }

    /// Nothing listens any more, and open connections are cut (a crashed receiver).
    public func down() {
        let (listener, closed, peers) = state.withLock { state -> (Int32, DispatchSemaphore?, Set<Int32>) in
            defer {
                state.listener = -1
                state.listenerClosed = nil
                state.peers = []
            }
            return (state.listener, state.listenerClosed, state.peers)
        }
        if listener >= 0 {
            // Wakes the accept thread, which closes the socket; `up` may bind the port again once it has.
            shutdown(listener, Int32(SHUT_RDWR))
            closed?.wait()
        }
        for peer in peers { shutdown(peer, Int32(SHUT_RDWR)) }
    }

    private func serve(_ peer: Int32) {
        defer {
            state.withLock { _ = $0.peers.remove(peer) }
            close(peer)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let request = Self.parse(bytes) {
                switch mode {
                case .stall:
                    // Holds the connection without a word until the client gives up or the receiver goes down.
                    _ = chunk.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
                    return
                case .answer(let status):
                    if (200..<300).contains(status) { state.withLock { $0.requests.append(request) } }
                    let answer = Array("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                    _ = answer.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    return
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            bytes += chunk[0..<count]
        }
    }

    private static func parse(_ bytes: [UInt8]) -> Request? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = String(text[..<end.lowerBound])
        let headLength = text[..<end.upperBound].utf8.count
        let length = Request(head: head, body: []).header("Content-Length").flatMap { Int($0) } ?? 0
        guard bytes.count >= headLength + length else { return nil }
        return Request(head: head, body: Array(bytes[headLength..<(headLength + length)]))
    }

    public enum ReceiverFailure: Error { case bind(Int32) }
}
