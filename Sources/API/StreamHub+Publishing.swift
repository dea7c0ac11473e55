import Engine
import Foundation
import HTTP
import HTTPServer
import Rules

/// Turning an event into bytes once and handing them to every stream that takes them; the event is retained for
/// resumes whether or not a stream is open now.
extension StreamHub {
    /// A flag change for a user: sent to each interested stream whose last seen value differs; retained.
    func publishFlag(
        user: String, key: String, evaluation: Evaluation, previous: JSONValue?, seq: UInt64?, appVersion: String?, observed: DomainEvent? = nil
    ) {
        let value = evaluation.value ?? .null
        withState { state in
            let id = nextID(&state, seq: seq)
            if let observed, let observer { observer.published(observed, id: id.description) }
            // Nobody streams this user, nor did inside the resume window: no stream hears the change, and none
            // can resume to it (`StreamHub+Following`).
            let userKey = ByteKey(user)
            guard isFollowed(userKey, in: &state) else { return }
            let change = DomainEvent.flagChanged(user: user, key: key, evaluation: evaluation, previous: previous, seq: seq, appVersion: appVersion)
            retain(
                &state,
                Retained(
                    id: id, user: user, type: "flag", flag: key, value: value, appVersion: appVersion, bytes: [], pending: change,
                    size: Self.eventByteCount(id: id, change), at: .now))
            // Framed only once a stream takes it: most writes have no listener.
            var frame: EventFrame?
            var refetch: EventFrame?
            let subscribers = targets(state, user: user)
            let direct = subscribers.count <= Self.directFanOut
            let flagKey = ByteKey(key)
            for subscriber in subscribers {
                guard wants(subscriber, type: "flag", user: user, flag: flagKey, appVersion: appVersion) else { continue }
                // One lookup: the value is written either way, and when it was no news it was already there.
                let seen = subscriber.updateLastSeen(value, forKey: flagKey)
                if subscriber.user != nil, !DomainEvent.isNews(value, lastSeen: seen) { continue }
                if subscriber.refetchOnly {
                    if refetch == nil { refetch = EventFrame(refetchBytes(id)) }
                    subscriber.stream.send(refetch!, direct: direct)
                } else {
                    if frame == nil { frame = EventFrame(encodeRetained(&state, id: id, change)) }
                    subscriber.stream.send(frame!, direct: direct)
                }
                state.sent += 1
            }
            // A closed stream inside the resume window hears it too, as far as its memory goes: the clock compares
            // with what it would have seen, and its resume replays this retained event.
            if var closedStreams = state.recentlyClosed[userKey] {
                for index in closedStreams.indices where closedStreams[index].appVersion == appVersion {
                    if closedStreams[index].lastSeen[flagKey] != nil { closedStreams[index].lastSeen[flagKey] = value }
                }
                state.recentlyClosed[userKey] = closedStreams
            }
        }
    }

    func publish(type: String, user: String?, data: JSONValue, seq: UInt64?, observed: DomainEvent? = nil) {
        withState { state in
            let id = nextID(&state, seq: seq)
            if let observed, let observer { observer.published(observed, id: id.description) }
            let bytes = SSEEncoder.encode(SSEEvent(id: id.description, event: type, data: JSONWriter.string(data)))
            let event = Retained(id: id, user: user, type: type, flag: nil, value: nil, appVersion: nil, bytes: bytes, at: .now)
            retain(&state, event)
            let subscribers = user.map { targets(state, user: $0) } ?? Array(state.subscribers.values)
            let direct = subscribers.count <= Self.directFanOut
            let frame = EventFrame(bytes)
            var refetch: EventFrame?
            for subscriber in subscribers {
                guard wants(subscriber, event) else { continue }
                if subscriber.refetchOnly {
                    // Triggers and context do not change evaluations; rules do.
                    if type == "rules" {
                        if refetch == nil { refetch = EventFrame(refetchBytes(id)) }
                        subscriber.stream.send(refetch!, direct: direct)
                    }
                    continue
                }
                subscriber.stream.send(frame, direct: direct)
                state.sent += 1
            }
        }
    }

    /// A trigger's firing for a user, retained unencoded like a flag change and framed only once a stream takes it,
    /// live or on a resume: most firings have no listener, and building, encoding and framing the event cost more
    /// than the rest of the write's publishing. Sent to each interested stream except those that only refetch (a
    /// firing changes no evaluation).
    func publishTrigger(_ event: DomainEvent, user: String, seq: UInt64?, observed: DomainEvent?) {
        withState { state in
            let id = nextID(&state, seq: seq)
            if let observed, let observer { observer.published(observed, id: id.description) }
            guard isFollowed(ByteKey(user), in: &state) else { return }
            let type = event.streamType
            retain(
                &state,
                Retained(
                    id: id, user: user, type: type, flag: nil, value: nil, appVersion: nil, bytes: [], pending: event,
                    size: Self.eventByteCount(id: id, event), at: .now))
            var frame: EventFrame?
            let subscribers = targets(state, user: user)
            let direct = subscribers.count <= Self.directFanOut
            for subscriber in subscribers {
                guard !subscriber.refetchOnly, wants(subscriber, type: type, user: user, flag: nil, appVersion: nil) else { continue }
                if frame == nil { frame = EventFrame(encodeRetained(&state, id: id, event)) }
                subscriber.stream.send(frame!, direct: direct)
                state.sent += 1
            }
        }
    }

    /// The SSE bytes of the event just retained under `id`, which then keeps them: a stream that resumes later
    /// copies them instead of encoding again. (The window may have dropped the event at once; then they are only
    /// returned.)
    func encodeRetained(_ state: inout State, id: EventID, _ event: DomainEvent) -> [UInt8] {
        let made = Self.eventBytes(id: id, event, scratch: &state.scratch)
        if let last = state.retained.indices.last, state.retained[last].id == id, state.retained[last].pending != nil {
            state.retained[last].bytes = made
            state.retained[last].pending = nil
        }
        return made
    }

    /// An event's SSE bytes, `id`, `event` and one `data` line, in a buffer of exactly their size (it may be
    /// retained for the whole resume window). Compact JSON has no line break, so this is `SSEEncoder.encode`'s
    /// output without splitting the text into lines first; `scratch` is reused across events.
    static func eventBytes(id: EventID, _ event: DomainEvent, scratch: inout [UInt8]) -> [UInt8] {
        scratch.removeAll(keepingCapacity: true)
        JSONWriter.append("id: ", into: &scratch)
        scratch.append(contentsOf: id.description.utf8)
        JSONWriter.append("\nevent: ", into: &scratch)
        scratch.append(contentsOf: event.streamType.utf8)
        JSONWriter.append("\ndata: ", into: &scratch)
        event.writeStreamData(seq: dataSeq(id: id, event), into: &scratch)
        JSONWriter.append("\n\n", into: &scratch)
        return scratch.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: source.count) { target, count in
                count = target.initialize(fromContentsOf: source)
            }
        }
    }

    /// The length of `eventBytes(id:_:scratch:)`, counted without encoding.
    static func eventByteCount(id: EventID, _ event: DomainEvent) -> Int {
        eventFramingBytes + event.streamType.utf8.count + id.textLength + event.streamDataByteCount(seq: dataSeq(id: id, event))
    }

    /// The `seq` an event's data carries under stream id `id` (`DomainEvent.dataSeq(streamSeq:)`).
    static func dataSeq(id: EventID, _ event: DomainEvent) -> UInt64 {
        event.dataSeq(streamSeq: id.seq)
    }

    /// `id: `, `\nevent: `, `\ndata: ` and the closing `\n\n` around an event's id, type and data.
    static let eventFramingBytes = 4 + 8 + 7 + 2

    /// `{"type": "refetchEvaluation", "etag", "lastModified"}` (OFREP): the id doubles as the etag.
    func refetchBytes(_ id: EventID) -> [UInt8] {
        let data: JSONValue = [
            "type": "refetchEvaluation", "etag": .string(id.description),
            "lastModified": .int(Int(Date().timeIntervalSince1970))
        ]
        return SSEEncoder.encode(SSEEvent(id: id.description, event: "message", data: JSONWriter.string(data)))
    }
}
