import Engine
import Foundation
import Rules
import Store
import Synchronization

/// A file system in memory whose contents outlive the dispatcher that wrote them (a kill -9 is a dispatcher dropped
/// without `stop`), which can be told to fail every write, and which can lose power: every file goes back to what
/// its last fsync covered.
final class MemoryFileSystem: FileSystem, @unchecked Sendable {
    private struct State {
        var files: [String: [UInt8]] = [:]
        /// What each file held at its last fsync (a rename moves it along, as a directory fsync would make it stay).
        var durable: [String: [UInt8]] = [:]
        var fsyncs = 0
        var open: [Int32: String] = [:]
        var nextFD: Int32 = 100
        var failWrites = false
    }

    private let state = Mutex(State())
    /// Called after each fsync, with the file's path, outside the file system's lock (a test acts mid-operation).
    let afterFsync = Mutex<(@Sendable (String) -> Void)?>(nil)

    func setFailWrites(_ fail: Bool) { state.withLock { $0.failWrites = fail } }
    func contents(_ path: String) -> [UInt8]? { state.withLock { $0.files[path] } }
    func replace(_ path: String, with bytes: [UInt8]) { state.withLock { $0.files[path] = bytes } }
    var paths: [String] { state.withLock { Array($0.files.keys) } }
    var fsyncCount: Int { state.withLock { $0.fsyncs } }
    func durableContents(_ path: String) -> [UInt8]? { state.withLock { $0.durable[path] } }
    func powerCut() { state.withLock { $0.files = $0.durable } }

    func openForAppend(_ path: String) throws(IOError) -> Int32 {
        state.withLock { state in
            if state.files[path] == nil { state.files[path] = [] }
            state.nextFD += 1
            state.open[state.nextFD] = path
            return state.nextFD
        }
    }

    func openForWrite(_ path: String) throws(IOError) -> Int32 {
        state.withLock { state in
            state.files[path] = []
            state.nextFD += 1
            state.open[state.nextFD] = path
            return state.nextFD
        }
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        let failed = state.withLock { state -> Bool in
            guard !state.failWrites, let target = state.open[fd] else { return true }
            state.files[target, default: []] += Array(bytes)
            return false
        }
        if failed { throw IOError(call: "write", path: path, code: EIO) }
        return bytes.count
    }

    func fsync(_ fd: Int32, path: String) throws(IOError) {
        state.withLock { state in
            state.fsyncs += 1
            if let target = state.open[fd] { state.durable[target] = state.files[target] }
        }
        afterFsync.withLock { $0 }?(path)
    }
    func close(_ fd: Int32) { state.withLock { _ = $0.open.removeValue(forKey: fd) } }

    func rename(_ from: String, _ to: String) throws(IOError) {
        let moved = state.withLock { state -> Bool in
            guard let bytes = state.files.removeValue(forKey: from) else { return false }
            state.files[to] = bytes
            state.durable[to] = state.durable.removeValue(forKey: from)
            for (fd, path) in state.open where path == from { state.open[fd] = to }
            return true
        }
        if !moved { throw IOError(call: "rename", path: from, code: ENOENT) }
    }

    func remove(_ path: String) throws(IOError) { state.withLock { _ = $0.files.removeValue(forKey: path) } }
    func fsyncDirectory(_ path: String) throws(IOError) {}

    func read(_ path: String) throws(IOError) -> [UInt8] {
        guard let bytes = state.withLock({ $0.files[path] }) else { throw IOError(call: "open", path: path, code: ENOENT) }
        return bytes
    }

    func list(_ directory: String) throws(IOError) -> [String] {
        state.withLock { state in state.files.keys.filter { $0.hasPrefix(directory + "/") }.map { String($0.dropFirst(directory.count + 1)) } }
    }

    func truncate(_ path: String, to size: Int) throws(IOError) {
        state.withLock { state in
            if let bytes = state.files[path] { state.files[path] = Array(bytes.prefix(size)) }
        }
    }

    func createDirectory(_ path: String) throws(IOError) {}
    func size(_ path: String) -> Int? { state.withLock { $0.files[path]?.count } }
}

/// A receiver the test scripts: each attempt takes the next planned answer (the last one repeats), and what was
/// delivered is kept with its headers.
final class ScriptedTransport: WebhookTransport, @unchecked Sendable {
    struct Received {
        let url: String
        let headers: [(name: String, value: String)]
        let body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    private let plan: Mutex<[WebhookAttempt]>
    let attempts = Mutex<[Received]>([])
    let delivered = Mutex<[Received]>([])

    init(_ plan: [WebhookAttempt] = [.delivered(status: 200)]) { self.plan = Mutex(plan) }

    func setPlan(_ plan: [WebhookAttempt]) { self.plan.withLock { $0 = plan } }
    /// Bodies this receiver always answers 503, whatever the plan.
    let refusing = Mutex<(@Sendable ([UInt8]) -> Bool)?>(nil)

    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) -> WebhookAttempt {
        let received = Received(url: url, headers: headers, body: body)
        attempts.withLock { $0.append(received) }
        if refusing.withLock({ $0 })?(body) == true { return .refused(status: 503) }
        let answer = plan.withLock { plan in plan.count > 1 ? plan.removeFirst() : plan[0] }
        if answer.isDelivered { delivered.withLock { $0.append(received) } }
        return answer
    }
}

/// A clock moved by hand.
final class WebhookClock: WallClock, @unchecked Sendable {
    let current = Mutex(Instant(milliseconds: 1_773_144_000_000))
    func now() -> Instant { current.withLock { $0 } }
    func set(_ instant: Instant) { current.withLock { $0 = $0 < instant ? instant : $0 } }
    func advance(_ milliseconds: Int64) { current.withLock { $0 = $0 + milliseconds } }
}

enum WebhookEvents {
    static func trigger(_ user: String, _ trigger: String = "welcome", seq: UInt64) -> DomainEvent {
        .triggerFired(user: user, trigger: trigger, at: Instant(milliseconds: 1_773_144_000_000), seq: seq)
    }

    static func flag(_ user: String, _ key: String, _ value: Int, appVersion: String? = nil, seq: UInt64? = 1) -> DomainEvent {
        .flagChanged(
            user: user, key: key, evaluation: Evaluation(key: key, value: .int(value), reason: .targetingMatch, matched: true), previous: .int(0),
            seq: seq,
            appVersion: appVersion)
    }
}
