import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Synchronization

/// Every live stream, the events recently sent (for `Last-Event-ID` resume), and the fan-out. Each event is
/// serialized once and the same bytes go to every stream that wants it (docs/api.md, "Streams").
///
/// Users and flag keys are matched by their bytes (`ByteKey`, `String.bytesEqual`), never by `String` equality:
/// NFC and NFD `café` are two users, and one must never hear the other's events.
public final class StreamHub: Sendable {
    public struct Options: Sendable {
        public var maxStreams = 10_000
        public var retainEvents = 10_000
        public var retainFor: Duration = .seconds(600)
        /// The window is also bounded by bytes: an event's size is the client's to choose (a `context` event carries
        /// the user's whole context, up to megabytes at the per-user caps), so a count alone bounds nothing.
        public var retainBytes = 64 << 20
        /// Users without an open stream that the resume window remembers, in each of its tables (closed streams,
        /// followed users, context wanted). Each is a client's to grow: a loop that opens and closes one stream
        /// per made-up user id left about 2 KB a time, for `retainFor`, without bound (found in review: one client
        /// grew a daemon by 100 MB in 15 s). Past it the users nearest to lapsing are forgotten, and their resume
        /// gets `reset`, as a lapsed one does.
        public var resumeUsers = 10_000
        public init() {}
    }

    struct ClosedStream {
        let appVersion: String?
        var lastSeen: [ByteKey: JSONValue]
        let until: MonotonicInstant
    }

    /// One flag of one user: where replay remembers the value it last sent.
    struct FlagSlot: Hashable {
        let user: ByteKey
        let flag: ByteKey
    }

    struct State {
        var subscribers: [Int: Subscriber] = [:]
        /// Each user's streams, by number: the subscribers themselves, so a fan-out to ten thousand streams of one
        /// user reads them in one pass instead of looking each number up in `subscribers` (a hash and a probe a
        /// stream, a tenth of a delivery's instructions).
        var byUser: [ByteKey: [Int: Subscriber]] = [:]
        /// How many of each user's streams listen with each app version: a write asks which versions to evaluate
        /// for, and counting them here answers without visiting every stream (ten thousand on one user).
        var versionsByUser: [ByteKey: [String?: Int]] = [:]
        /// Streams for every user (`GET /v1/stream`).
        var global: [Int] = []
        /// How many global streams listen with each app version: every user's changes are evaluated for these.
        var globalVersions: [String?: Int] = [:]
        /// App versions whose last global stream closed recently: every user's writes are still evaluated for them
        /// for `retainFor`, so the global stream that resumes misses nothing of its version.
        var closedGlobalVersions: [String: MonotonicInstant] = [:]
        /// Streams with `?include=context`, global and per user: counted so a write need not scan streams to ask.
        var globalWithContext = 0
        var withContextByUser: [ByteKey: Int] = [:]
        /// Users whose last context stream closed recently: their context events are still made and retained for
        /// `retainFor`, so a client that reconnects with `Last-Event-ID` gets the writes it missed meanwhile.
        var contextWantedUntil: [ByteKey: MonotonicInstant] = [:]
        var contextWantedPruneAt = 1024
        /// User streams that closed recently, as the clock and reloads still see them for `retainFor`: their app
        /// version and last seen values, kept current as changes are published. A client that reconnects with
        /// `Last-Event-ID` then gets what the stream would have heard meanwhile, clock-driven changes included.
        var recentlyClosed: [ByteKey: [ClosedStream]] = [:]
        var recentlyClosedPruneAt = 1024
        var globalContextWantedUntil: MonotonicInstant?
        var nextSubscriber = 0
        var lastID: EventID
        /// The oldest id that can still be resumed from: anything older gets a `reset`.
        var resumableAfter: EventID
        /// Retained events from `retainedStart` on; the prefix is dropped in bulk, not one memmove per event.
        var retained: [Retained] = []
        var retainedStart = 0
        /// Bytes held by `retained[retainedStart...]`.
        var retainedBytes = 0
        var dropped = 0
        var sent = 0
        /// Where event bytes are assembled before their exact-size copy is kept.
        var scratch: [UInt8] = []
        /// Users whose flag and trigger events are kept for resume (`StreamHub+Following`), and since when.
        var following: [ByteKey: Following] = [:]
        var followingPruneAt = 1024
        /// The same for every user, while global streams are open or closed recently.
        var globalFollowing: Following?
        /// Users the resume window forgot before their time, past `Options.resumeUsers` (`StreamHub+ResumeMemory`).
        var forgottenForResume = 0
    }

    /// Closed streams remembered per user for resume (the newest).
    static let closedStreamsPerUser = 4

    /// Up to this many receivers, the publishing thread writes an event to each socket itself (no wake-up of the
    /// streams' loops); beyond it, each loop writes its share in parallel.
    static let directFanOut = 16

    public let options: Options
    private let state: Mutex<State>
    /// Streams that closed since the state was last locked. A stream may close while the hub is sending to it
    /// (its connection writes inline on the loop thread): the close is queued here, never taken under `state`.
    private let closed = Mutex<[(number: Int, reason: EventStream.CloseReason)]>([])

    /// Hears each published event with its id, under the hub's lock (the webhooks).
    let observer: (any DomainEventObserver)?

    /// `startSeq` is the log's last seq at start: ids from an earlier run are not resumable.
    /// `options.retainFor` in nanoseconds, converted once: the window's horizon is computed on every publish.
    let retainForNanoseconds: Int64

    public init(options: Options = Options(), startSeq: UInt64, observer: (any DomainEventObserver)? = nil) {
        self.options = options
        retainForNanoseconds = options.retainFor.saturatingNanoseconds
        self.observer = observer
        state = Mutex(State(lastID: EventID(seq: startSeq), resumableAfter: EventID(seq: startSeq)))
    }

    public var streamCount: Int { withState { $0.subscribers.count } }
    public var droppedSlowStreams: Int { withState { $0.dropped } }
    /// Users whose resume state was forgotten early to keep the window inside `Options.resumeUsers`.
    public var forgottenResumeUsers: Int { withState { $0.forgottenForResume } }
    public var lastID: EventID { withState { $0.lastID } }

    public func subscribedUsers() -> [String] {
        withState { state in
            let now = MonotonicInstant.now
            var users = Array(state.byUser.keys)
            for (user, streams) in state.recentlyClosed where state.byUser[user] == nil && streams.contains(where: { $0.until > now }) {
                users.append(user)
            }
            return users.map(\.string)
        }
    }

    /// Registers a stream. With a `Last-Event-ID` inside the retained window the missed events are replayed;
    /// an older one gets one `reset` with `resetState`, then live events. `nil` when the stream cap is reached.
    ///
    /// `readAt` is what `beginFollowing` returned before `currentValues` and `resetState` were read: events published
    /// since then may be missing from them, so they follow the prelude (a flag event only when its value differs from
    /// the one the stream starts with).
    func subscribe(
        _ stream: EventStream, user: String?, flags: Set<ByteKey>?, types: Set<String>?, includeContext: Bool = false,
        refetchOnly: Bool = false, appVersion: String? = nil, lastEventID: EventID?, readAt: EventID? = nil,
        currentValues: [ByteKey: JSONValue], resetState: () -> JSONValue
    ) -> Bool {
        let accepted = withState { state -> Bool in
            guard state.subscribers.count < options.maxStreams else { return false }
            let number = state.nextSubscriber
            state.nextSubscriber += 1
            var seen: [ByteKey: JSONValue] = [:]
            if types?.contains("flag") ?? true {
                for (key, value) in currentValues where flags?.contains(key) ?? true { seen[key] = value }
            }
            let subscriber = Subscriber(
                stream: stream, user: user, flags: flags, types: types, includeContext: includeContext,
                refetchOnly: refetchOnly, appVersion: appVersion, lastSeen: seen)
            var prelude = SSEEncoder.encode(SSEEvent(retry: 2000, comment: "connected"))
            let userKey = user.map { ByteKey($0) }
            var exactFrom: EventID?
            if let lastEventID {
                if lastEventID >= state.resumableAfter, lastEventID <= state.lastID,
                    followedWithoutGap(user: userKey, since: lastEventID, in: state)
                {
                    exactFrom = lastEventID
                    replay(after: lastEventID, to: subscriber, startingFrom: [:], into: &prelude, in: &state)
                } else {
                    let reset = SSEEncoder.encode(SSEEvent(id: state.lastID.description, event: "reset", data: JSONWriter.string(resetState())))
                    prelude += reset
                }
            }
            // What was published while the stream's values were read: kept, since the user was followed from then.
            if exactFrom == nil, let readAt, readAt < state.lastID {
                var startingValues: [FlagSlot: JSONValue] = [:]
                if let userKey { for (flag, value) in seen { startingValues[FlagSlot(user: userKey, flag: flag)] = value } }
                replay(after: readAt, to: subscriber, startingFrom: startingValues, into: &prelude, in: &state)
            }
            stream.send(prelude)
            // A resume takes the place of the closed stream it continues (the newest of its version).
            if let user, lastEventID != nil, var closedStreams = state.recentlyClosed[ByteKey(user)],
                let index = closedStreams.lastIndex(where: { $0.appVersion == appVersion })
            {
                closedStreams.remove(at: index)
                state.recentlyClosed[ByteKey(user)] = closedStreams.isEmpty ? nil : closedStreams
            }
            state.subscribers[number] = subscriber
            if let user {
                state.byUser[ByteKey(user), default: [:]][number] = subscriber
                state.versionsByUser[ByteKey(user), default: [:]][appVersion, default: 0] += 1
                if includeContext { state.withContextByUser[ByteKey(user), default: 0] += 1 }
            } else {
                state.global.append(number)
                state.globalVersions[appVersion, default: 0] += 1
                if includeContext { state.globalWithContext += 1 }
            }
            // After the user counts as open: the resume bound this may run never forgets a user with an open stream.
            follow(userKey, in: &state, until: nil, exactFrom: exactFrom)
            stream.onClose { [weak self] reason in self?.unsubscribe(number, reason: reason) }
            return true
        }
        return accepted
    }

    /// Appends to `prelude` the retained events after `id` that `subscriber` wants, in order. Once each: a flag event
    /// that repeats the value last sent for that flag (or the stream's starting value, `startingFrom`) is one the
    /// stream would not have been sent live either. A stream that only refetches gets one refetch event instead.
    private func replay(
        after id: EventID, to subscriber: Subscriber, startingFrom starting: [FlagSlot: JSONValue], into prelude: inout [UInt8],
        in state: inout State
    ) {
        var replayed = starting
        // A stream that only refetches (OFREP) hears once that something changed, however much did.
        var refetchAfter: EventID?
        defer { if let refetchAfter { prelude += refetchBytes(refetchAfter) } }
        for position in state.retainedStart..<state.retained.count {
            let event = state.retained[position]
            guard event.id > id, wants(subscriber, event) else { continue }
            if let flag = event.flag, let value = event.value, let eventUser = event.user {
                let slot = FlagSlot(user: ByteKey(eventUser), flag: ByteKey(flag))
                if replayed[slot] == value { continue }
                replayed[slot] = value
                if subscriber.user != nil { subscriber.lastSeen[slot.flag] = value }
            }
            if subscriber.refetchOnly {
                // A firing changes no evaluation (`publishTrigger` sends these streams none).
                if event.type != "trigger" { refetchAfter = event.id }
                continue
            }
            guard event.pending != nil else {
                prelude += event.bytes
                continue
            }
            // Encoded once, and kept: a client resuming again from an old id costs a copy, not an encoding.
            let bytes = event.encoded(scratch: &state.scratch)
            state.retained[position].bytes = bytes
            state.retained[position].pending = nil
            prelude += bytes
        }
    }

    /// The state, with every stream closed meanwhile removed first.
    func withState<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        state.withLock { state in
            let gone = closed.withLock { list in
                defer { list.removeAll() }
                return list
            }
            for (number, reason) in gone { remove(number, reason: reason, from: &state) }
            return body(&state)
        }
    }

    private func unsubscribe(_ number: Int, reason: EventStream.CloseReason) {
        closed.withLock { $0.append((number, reason)) }
    }

    func wants(_ subscriber: Subscriber, _ event: Retained) -> Bool {
        wants(subscriber, type: event.type, user: event.user, flag: event.flag.map { ByteKey($0) }, appVersion: event.appVersion)
    }

    /// `flag`: the event's flag as a key, made once by the caller for all the streams an event goes to.
    func wants(_ subscriber: Subscriber, type: String, user eventUser: String?, flag: ByteKey?, appVersion: String?) -> Bool {
        if type == "context", !subscriber.includeContext { return false }
        if let user = subscriber.user, let eventUser, !eventUser.bytesEqual(user) { return false }
        if let types = subscriber.types, !types.contains(type) { return false }
        if let flag, !subscriber.takesFlag(flag) { return false }
        if type == "flag", appVersion != subscriber.appVersion { return false }
        if subscriber.user != nil, eventUser == nil, type != "rules" { return false }
        return true
    }

    public func lastSeen(user: String, appVersion: String?) -> [[ByteKey: JSONValue]] {
        withState { state in
            let key = ByteKey(user)
            let live = (state.byUser[key] ?? [:]).values.compactMap { $0.appVersion == appVersion ? $0.lastSeen : nil }
            return live + recentlyClosed(key, in: &state).filter { $0.appVersion == appVersion }.map(\.lastSeen)
        }
    }

    /// The streams an event of `user` may go to: the user's own, then every global one.
    func targets(_ state: State, user: String) -> [Subscriber] {
        var targets = state.byUser[ByteKey(user)].map { Array($0.values) } ?? []
        for number in state.global {
            if let subscriber = state.subscribers[number] { targets.append(subscriber) }
        }
        return targets
    }

    func nextID(_ state: inout State, seq: UInt64?) -> EventID {
        let id: EventID
        if let seq, seq > state.lastID.seq {
            id = EventID(seq: seq)
        } else {
            id = EventID(seq: state.lastID.seq, index: state.lastID.index + 1)
        }
        state.lastID = id
        return id
    }

    /// Closed streams remembered for resume, over all users (for tests: bounded per user).
    var rememberedClosedStreams: Int { withState { $0.recentlyClosed.values.reduce(0) { $0 + $1.count } } }
    /// Users followed for resume, with a stream open or not (for tests: bounded by `resumeUsers` past the open ones).
    var followedUsers: Int { withState { $0.following.count } }

    /// Event bytes the hub holds as allocated, dropped events included (for tests: it must stay within
    /// `retainBytes`). Capacity, not count: a buffer allocated at twice its event's size is what memory pays.
    var heldEventBytes: Int {
        withState { state in state.retained.reduce(0) { $0 + ($1.pending != nil ? $1.size : $1.bytes.capacity) } }
    }

    func retain(_ state: inout State, _ event: consuming Retained) {
        state.retainedBytes += event.size
        let horizon = event.at.advanced(byNanoseconds: -max(retainForNanoseconds, -Int64.max))
        state.retained.append(consume event)
        var start = state.retainedStart
        while start < state.retained.count,
            state.retained.count - start > options.retainEvents
                || state.retained[start].at < horizon || state.retainedBytes > options.retainBytes
        {
            state.retainedBytes -= state.retained[start].size
            // Freed now, not at the next compaction: otherwise the window held up to twice its limits.
            state.retained[start].bytes = []
            state.retained[start].pending = nil
            state.retained[start].value = nil
            start += 1
        }
        if start > state.retainedStart { state.resumableAfter = state.retained[start - 1].id }
        state.retainedStart = start
        if start > 1024, start * 2 > state.retained.count {
            state.retained.removeFirst(start)
            state.retainedStart = 0
        }
    }
}
