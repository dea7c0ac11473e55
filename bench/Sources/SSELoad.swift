import CLinux
import Foundation
import Glibc
import Synchronization

/// SSE delivery load client: opens N event-stream subscriptions to specd or to nginx + nchan, publishes M changes
/// over one keep-alive connection, and reports publish → delivery latency (p50/p99) and events/s as one JSON line.
/// A compiled epoll reader, so that at 10 000 streams the client, not the server, stops being what is measured.
/// Loopback only; every wait is bounded.
///
///   specd-bench sse-load specd|nchan --port P --subscribers N --changes M --mode one|own [--readers K]
enum SSELoad {
    struct Options {
        var target = "specd"
        var port = 0
        var subscribers = 1000
        var changes = 20
        var mode = "one"
        /// Reading threads; one keeps the client's footprint small, two keep up with 10 000-stream fan-outs.
        var readers = 1

        init(_ arguments: [String]) throws(UsageError) {
            var rest = arguments[...]
            guard let target = rest.popFirst(), ["specd", "nchan"].contains(target) else { throw UsageError() }
            self.target = target
            while let flag = rest.popFirst() {
                guard let value = rest.popFirst() else { throw UsageError() }
                switch flag {
                case "--port": port = Int(value) ?? 0
                case "--subscribers": subscribers = Int(value) ?? 0
                case "--changes": changes = Int(value) ?? 0
                case "--mode": mode = value
                case "--readers": readers = Int(value) ?? 0
                default: throw UsageError()
                }
            }
            guard port > 0, subscribers > 0, changes > 0, readers > 0, ["one", "own"].contains(mode) else { throw UsageError() }
        }
    }

    struct UsageError: Error {}

    static func main(_ arguments: [String]) -> Int32 {
        let options: Options
        do { options = try Options(arguments) } catch {
            FileHandle.standardError.write(
                Data("usage: specd-bench sse-load specd|nchan --port P --subscribers N --changes M --mode one|own [--readers K]\n".utf8))
            return 1
        }
        do { return try run(options) } catch {
            FileHandle.standardError.write(Data("sse-load: \(error)\n".utf8))
            return 1
        }
    }

    static func run(_ options: Options) throws -> Int32 {
        let n = options.subscribers, m = options.changes
        // Fresh channel and user names each run: nchan replays buffered messages to new subscribers of old channels.
        let run = "r\(Int(Date().timeIntervalSince1970 * 1000) % 10_000_000)"
        let channel = { (i: Int) in options.mode == "one" ? "\(run)-u0" : "\(run)-u\(i)" }
        let readers = SubscriberSet(count: n, threads: options.readers)
        for i in 0..<n {
            let path = options.target == "specd" ? "/v1/users/\(channel(i))/stream?flags=bench" : "/sub?id=\(channel(i))"
            let fd = try connectLoopback(port: options.port)
            try writeAll(fd, Array("GET \(path) HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".utf8))
            readers.add(fd)
        }
        readers.start()
        let headsDeadline = now() + 60_000_000_000
        while readers.headsReceived.load(ordering: .acquiring) < n, now() < headsDeadline {
            if readers.failures.load(ordering: .relaxed) > 0 { break }
            usleep(1000)
        }
        guard readers.headsReceived.load(ordering: .acquiring) == n else {
            _ = readers.stop()
            throw LoadError(
                "only \(readers.headsReceived.load(ordering: .relaxed)) of \(n) streams opened (\(readers.failures.load(ordering: .relaxed)) failed)")
        }

        let expectedTotal = options.mode == "one" ? n * m : min(n, m)
        var sentAt: [Int: UInt64] = [:]
        var publisher = try connectLoopback(port: options.port)
        defer { close(publisher) }
        let start = now()
        for k in 0..<m {
            // Both servers end a keep-alive connection after 1 000 requests: start a new one well before.
            if k > 0, k % 500 == 0 {
                close(publisher)
                publisher = try connectLoopback(port: options.port)
            }
            let target = options.mode == "one" ? channel(0) : channel(k % n)
            if options.target == "specd" {
                // One user: toggle. Own users: each gets its segment once, so every change changes the flag.
                let op = options.mode == "own" || k % 2 == 0 ? "addSegment" : "removeSegment"
                let body = "{\"ops\":[{\"op\":\"\(op)\",\"segment\":\"bench\"}]}"
                let sent = now()
                let answer = try exchange(publisher, "PATCH", "/v1/users/\(target)/context", body)
                // The seq comes back in the answer; the event carries it (and may arrive first).
                guard let seq = SSEStreamReader.key(in: Array("data:".utf8) + answer) else { throw LoadError("no seq in answer") }
                sentAt[seq] = sent
            } else {
                let key = k + 1
                sentAt[key] = now()
                _ = try exchange(publisher, "POST", "/pub?id=\(target)", "{\"bench\":\(key)}")
            }
            usleep(options.mode == "one" ? 10_000 : 1_000)
        }
        let deadline = now() + 30_000_000_000
        while readers.delivered.load(ordering: .acquiring) < expectedTotal, now() < deadline { usleep(1000) }
        let elapsed = Double(now() - start) / 1e9
        let deliveries = readers.stop()
        if ProcessInfo.processInfo.environment["SSE_LOAD_SLOWEST"] != nil {
            // Diagnostics: the slowest deliveries, with when they were published relative to the start.
            let slow = deliveries.compactMap { d in sentAt[d.key].map { (d.key, Double(d.at &- $0) / 1e6, Double($0 &- start) / 1e6) } }
                .sorted { $0.1 > $1.1 }.prefix(12)
            for (key, latency, sent) in slow {
                FileHandle.standardError.write(Data(String(format: "key %d sent at %.1f ms: %.3f ms\n", key, sent, latency).utf8))
            }
        }
        let latencies = deliveries.compactMap { delivery in sentAt[delivery.key].map { Double(delivery.at &- $0) / 1e6 } }.sorted()
        guard !latencies.isEmpty else {
            print("{\"target\":\"\(options.target)\",\"delivered\":0,\"expected\":\(expectedTotal)}")
            return 1
        }
        let percentile = { (q: Double) in latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))] }
        print(
            String(
                format: "{\"target\":\"%@\",\"mode\":\"%@\",\"subscribers\":%d,\"changes\":%d,\"delivered\":%d,\"expected\":%d,"
                    + "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"events_per_s\":%.0f}",
                options.target, options.mode, n, m, latencies.count, expectedTotal, percentile(0.5), percentile(0.99),
                latencies.last!, Double(latencies.count) / elapsed))
        return latencies.count == expectedTotal ? 0 : 1
    }

    struct LoadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    static func connectLoopback(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoadError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw LoadError("connect: errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw LoadError("send: errno \(errno)") }
            offset += written
        }
    }

    /// One request on the keep-alive publisher connection; returns the response body (Content-Length framed).
    static func exchange(_ fd: Int32, _ method: String, _ path: String, _ body: String) throws -> [UInt8] {
        let bodyBytes = Array(body.utf8)
        try writeAll(
            fd,
            Array("\(method) \(path) HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n\r\n".utf8)
                + bodyBytes)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = now() + 30_000_000_000
        while now() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw LoadError("publisher connection closed") }
            received += buffer[0..<count]
            guard let headEnd = find([13, 10, 13, 10], in: received) else { continue }
            let head = String(decoding: received[0..<headEnd], as: UTF8.self).lowercased()
            guard head.hasPrefix("http/1.1 2") else { throw LoadError("publish answered \(head.prefix(40))") }
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count >= headEnd + 4 + length { return Array(received[(headEnd + 4)..<(headEnd + 4 + length)]) }
        }
        throw LoadError("publish timed out")
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { start in
            (0..<needle.count).allSatisfy { haystack[start + $0] == needle[$0] }
        }
    }
}
