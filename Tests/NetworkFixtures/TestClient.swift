import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking raw-socket HTTP client for loopback tests: sends exact bytes, reads exact responses.
public final class TestClient {
    public struct Response {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// -1 once `reset` closed it.
    public private(set) var fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int, timeout: Double = 5, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        // `deinit` closes `fd` on every path, the throwing ones too: closing it here as well would close whatever
        // another test's thread opened under that number in between.
        guard fd >= 0 else { throw Failure(description: "socket failed: \(errno)") }
        if var size = receiveBuffer {
            // Before connect, so the advertised window is small from the start.
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect failed: \(errno)") }
        setTimeout(timeout)
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Ends the sending side (a FIN): the server reads end of file after what was sent.
    public func halfClose() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes with a reset (RST) instead of a FIN: `SO_LINGER` with no linger time, as a client that aborts does.
    public func reset() {
        guard fd >= 0 else { return }
        var abort = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size))
        Glibc.close(fd)
        fd = -1
    }

    /// One byte of urgent (out-of-band) data, as `send(MSG_OOB)`: it leaves the stream, and marks where it was.
    public func sendUrgent(_ byte: UInt8) throws {
        var value = byte
        guard Glibc.send(fd, &value, 1, Int32(MSG_OOB | MSG_NOSIGNAL)) == 1 else { throw Failure(description: "send failed: \(errno)") }
    }

    /// Bytes sent that the server's kernel has not acknowledged yet (`TIOCOUTQ`): 0 once everything sent waits in
    /// the server's socket; -1 when it cannot be read.
    public var unacknowledgedBytes: Int {
        var count: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &count) == 0 ? Int(count) : -1
    }

    public func setTimeout(_ seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure(description: "send failed: \(errno)") }
            offset += written
        }
    }

    /// Reads more bytes; returns false on EOF. Throws on timeout or reset.
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[0..<count]
            return true
        }
        if count == 0 { return false }
        throw Failure(description: errno == EAGAIN ? "timed out waiting for the server" : "recv failed: \(errno)")
    }

    /// Reads one response framed by Content-Length (or none, for 1xx/204/304/HEAD).
    public func readResponse(isHead: Bool = false) throws -> Response {
        while true {
            if let end = headEnd() {
                let headText = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = headText.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "bad status line") }
                let headers = lines.filter { !$0.isEmpty }.map { line -> (String, String) in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
                }
                var response = Response(status: status, headers: headers, body: [])
                let length = isHead || status < 200 || status == 204 || status == 304 ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
                while buffer.count < end + 4 + length {
                    guard try fill() else { throw Failure(description: "EOF inside a body") }
                }
                response.body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return response
            }
            guard try fill() else { throw Failure(description: "EOF before a response") }
        }
    }

    /// Reads a response head only (a stream's body follows as chunks).
    public func readHead() throws -> Response {
        while true {
            if let end = headEnd() {
                let headText = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = headText.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                let headers = lines.filter { !$0.isEmpty }.map { line -> (String, String) in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
                }
                buffer.removeFirst(end + 4)
                return Response(status: Int(statusLine[1]) ?? 0, headers: headers, body: [])
            }
            guard try fill() else { throw Failure(description: "EOF before a head") }
        }
    }

    private var chunkedText = ""

    /// Reads SSE blocks (separated by a blank line) from a chunked stream until `count` arrived; comments count.
    public func readEvents(_ count: Int) throws -> [String] {
        var events: [String] = []
        while events.count < count {
            while let range = chunkedText.range(of: "\n\n") {
                events.append(String(chunkedText[..<range.lowerBound]))
                chunkedText = String(chunkedText[range.upperBound...])
                if events.count == count { return events }
            }
            try decodeChunk()
        }
        return events
    }

    /// Moves one chunk's data from the socket buffer into `chunkedText`.
    private func decodeChunk() throws {
        while true {
            if let lineEnd = findCRLF(from: 0) {
                let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first.map(String.init) ?? ""
                guard let size = Int(sizeText, radix: 16) else { throw Failure(description: "bad chunk size '\(sizeText)'") }
                if size == 0 { throw Failure(description: "stream ended") }
                if buffer.count >= lineEnd + 2 + size + 2 {
                    chunkedText += String(decoding: buffer[(lineEnd + 2)..<(lineEnd + 2 + size)], as: UTF8.self)
                    buffer.removeFirst(lineEnd + 2 + size + 2)
                    return
                }
            }
            guard try fill() else { throw Failure(description: "EOF in a stream") }
        }
    }

    private func findCRLF(from start: Int) -> Int? {
        guard buffer.count >= start + 2 else { return nil }
        for index in start..<(buffer.count - 1) where buffer[index] == 13 && buffer[index + 1] == 10 { return index }
        return nil
    }

    /// True when the server closed the connection (EOF) with nothing more to read.
    public func isClosedByServer() -> Bool {
        guard buffer.isEmpty else { return false }
        return (try? fill()) == false
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
