import Rules
import Synchronization

/// The subscribers of a scenario run: one user stream per user the scenario mentions, open from its start, hearing
/// exactly what the daemon's stream hub would send it (the same event data, only real flag changes against what the
/// stream last saw, rule reloads to every stream), plus every trigger fire by user. The runner drains what each
/// stream heard during a step. Runs on the runner's one thread; the lock only satisfies `Sendable`.
final class ScenarioStreams: Subscribers {
    private struct Stream {
        /// The configuration's app version, as a stream opened with `X-App-Version`.
        var appVersion: String?
        var lastSeen: [ByteKey: JSONValue] = [:]
        /// Events heard since the last drain, as `{"type", ...data}` objects.
        var heard: [JSONObject] = []
        /// Trigger fires since the last drain, by trigger key.
        var fired: [ByteKey: Int] = [:]
        /// Events heard past `maxHeard` since the last drain, not kept.
        var overflow = 0

        mutating func hear(_ event: JSONObject) {
            guard heard.count < ScenarioStreams.maxHeard else {
                overflow += 1
                return
            }
            heard.append(event)
        }
    }

    /// Events one stream keeps between drains (a step): a far clock move over hourly flags and fifty users buffered
    /// every change of every instant, past 2 GB (found in review).
    static let maxHeard = 10_000

    private struct State {
        var streams: [ByteKey: Stream] = [:]
        /// The last write's seq: a change the clock or a reload causes carries it, as the hub's ids do.
        var lastSeq: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Opens a stream for `user`, listening with `appVersion`, that has seen `values` (its flags' answers at the
    /// moment it opened).
    func open(user: String, appVersion: String?, values: [ByteKey: JSONValue]) {
        state.withLock { $0.streams[ByteKey(user)] = Stream(appVersion: appVersion, lastSeen: values) }
    }

    /// What `user`'s stream heard and which triggers fired for the user since the last drain, and how many events
    /// it did not keep (past `maxHeard`).
    func drain(user: String) -> (events: [JSONObject], fired: [ByteKey: Int], overflow: Int) {
        state.withLock { state in
            let key = ByteKey(user)
            guard let stream = state.streams[key] else { return ([], [:], 0) }
            state.streams[key]!.heard = []
            state.streams[key]!.fired = [:]
            state.streams[key]!.overflow = 0
            return (stream.heard, stream.fired, stream.overflow)
        }
    }

    func publish(_ event: DomainEvent) {
        state.withLock { state in
            switch event {
            case .flagChanged(let user, let key, let evaluation, _, let seq, let appVersion):
                if let seq { state.lastSeq = max(state.lastSeq, seq) }
                let userKey = ByteKey(user)
                let flagKey = ByteKey(key)
                let value = evaluation.value ?? .null
                guard let stream = state.streams[userKey], stream.appVersion == appVersion,
                    DomainEvent.isNews(value, lastSeen: stream.lastSeen[flagKey])
                else { return }
                state.streams[userKey]!.lastSeen[flagKey] = value
                state.streams[userKey]!.hear(Self.object(event, seq: seq ?? state.lastSeq))
            case .triggerFired(let user, let trigger, _, let seq):
                state.lastSeq = max(state.lastSeq, seq)
                let userKey = ByteKey(user)
                guard state.streams[userKey] != nil else { return }
                state.streams[userKey]!.hear(Self.object(event, seq: seq))
                state.streams[userKey]!.fired[ByteKey(trigger), default: 0] += 1
            case .contextChanged(_, _, let seq):
                // A plain user stream does not ask for context events (`?include=context`).
                state.lastSeq = max(state.lastSeq, seq)
            case .rulesReloaded:
                let object = Self.object(event, seq: state.lastSeq)
                for key in state.streams.keys { state.streams[key]!.hear(object) }
            }
        }
    }

    private static func object(_ event: DomainEvent, seq: UInt64) -> JSONObject {
        var object: JSONObject = ["type": .string(event.streamType)]
        if case .object(let data) = event.streamData(seq: seq) {
            for (key, value) in data { object[key] = value }
        }
        return object
    }

    func hasSubscribers(for user: String) -> Bool { state.withLock { $0.streams[ByteKey(user)] != nil } }

    func wantsContext(for user: String) -> Bool { false }

    func subscribedUsers() -> [String] { state.withLock { $0.streams.keys.map(\.string) } }

    func appVersions(hearing user: String) -> [String?] {
        state.withLock { state in state.streams[ByteKey(user)].map { [$0.appVersion] } ?? [] }
    }

    func lastSeen(user: String, appVersion: String?) -> [[ByteKey: JSONValue]] {
        state.withLock { state in
            guard let stream = state.streams[ByteKey(user)], stream.appVersion == appVersion else { return [] }
            return [stream.lastSeen]
        }
    }
}
