import Rules
import Store
import Synchronization

/// What specd runs and waits for (Statable's operation tracker, docs/api.md "Operations"): rule reloads,
/// snapshots, compactions and the recovery at start as they run and once finished, plus whatever other sources
/// list (`addSource`: webhook deliveries come in that way). Pending delayed fires are not kept here: the engine
/// adds them from its clock when asked, so the list never disagrees with what will fire.
///
/// Bounded: running operations (a handful: one reload, one snapshot at a time) and the last `finishedLimit`
/// finished ones. Any thread; one lock.
public final class OperationTracker: Sendable {
    /// Finished operations kept for the list, newest last.
    public static let finishedLimit = 100

    /// A finished operation as kept: made, or the closure that makes it when it is listed. A settled delayed fire
    /// (one for every donation that schedules one) is kept that way: its id, detail and dates cost ~8 k
    /// instructions to make, and most are overwritten in the ring before anyone lists them.
    private enum Kept {
        case made(TrackedOperation)
        case deferred(@Sendable () -> TrackedOperation)

        var operation: TrackedOperation {
            switch self {
            case .made(let operation): return operation
            case .deferred(let make): return make()
            }
        }
    }

    private struct State {
        var running: [String: TrackedOperation] = [:]
        /// A ring of at most `finishedLimit`: once full, the oldest slot is overwritten. Removing the oldest from the
        /// front of an array moved the other 99 on every settled delayed fire (12 k instructions each).
        var finished: [Kept] = []
        /// The oldest entry's slot once the ring is full (0 until then).
        var oldest = 0

        /// Finished operations, newest first (as kept: the caller makes them outside the lock).
        var finishedNewestFirst: [Kept] {
            Array(finished[..<oldest].reversed()) + finished[oldest...].reversed()
        }
        var lastID = 0
        /// The running snapshot and compaction, by kind: the store runs one of each at a time.
        var storeRunning: [StoreActivity.Kind: String] = [:]
        var sources: [@Sendable () -> [TrackedOperation]] = []
    }

    private let state = Mutex(State())
    private let clock: WallClock

    public init(clock: WallClock) {
        self.clock = clock
    }

    /// Starts an operation (`loading`) and returns its id, `<kind>-<n>`.
    @discardableResult
    public func begin(_ kind: String, detail: JSONObject = [:]) -> String {
        let now = clock.now()
        return state.withLock { state in
            state.lastID += 1
            let id = "\(kind)-\(state.lastID)"
            state.running[id] = TrackedOperation(id: id, kind: kind, state: .loading, startedAt: now, detail: detail)
            return id
        }
    }

    /// Ends a running operation: `loaded`, or `failed` with `error`. `detail` members are merged in.
    public func finish(_ id: String, error: String? = nil, detail: JSONObject = [:]) {
        let now = clock.now()
        state.withLock { state in
            guard var operation = state.running.removeValue(forKey: id) else { return }
            operation.state = error == nil ? .loaded : .failed
            operation.finishedAt = now
            operation.error = error
            for (key, value) in detail { operation.detail[key] = value }
            Self.keep(.made(operation), in: &state)
        }
    }

    /// Forgets a running operation that turned out to do nothing (a reload refused because another was loading).
    public func discard(_ id: String) {
        _ = state.withLock { $0.running.removeValue(forKey: id) }
    }

    /// Adds an operation that already finished (recovery, measured before the tracker existed; a cancelled fire).
    public func record(_ operation: TrackedOperation) {
        state.withLock { state in
            var operation = operation
            if operation.id.isEmpty {
                state.lastID += 1
                operation = TrackedOperation(
                    id: "\(operation.kind)-\(state.lastID)", kind: operation.kind, state: operation.state, startedAt: operation.startedAt,
                    finishedAt: operation.finishedAt, error: operation.error, detail: operation.detail)
            }
            Self.keep(.made(operation), in: &state)
        }
    }

    /// Adds a finished operation made only if it is listed or looked up while still kept. `make` must give the
    /// same operation every time, with its own non-empty id, and must not call back into the tracker.
    public func recordLazily(_ make: @escaping @Sendable () -> TrackedOperation) {
        state.withLock { Self.keep(.deferred(make), in: &$0) }
    }

    /// Another list of operations shown with these (webhook deliveries): called on every listing, on the caller's
    /// thread, so it must be quick and must not call back into the tracker.
    public func addSource(_ source: @escaping @Sendable () -> [TrackedOperation]) {
        state.withLock { $0.sources.append(source) }
    }

    /// Running operations first (oldest first), then finished ones (newest first), then the other sources'.
    public var operations: [TrackedOperation] {
        let (running, finished, sources) = state.withLock { state in
            (state.running.values.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }, state.finishedNewestFirst, state.sources)
        }
        return running + finished.map(\.operation) + sources.flatMap { $0() }
    }

    /// A finished operation by id (to tell "not cancellable" from "unknown").
    public func operation(_ id: String) -> TrackedOperation? {
        let (running, finished, sources) = state.withLock { state in (state.running[id], state.finished, state.sources) }
        return running ?? finished.lazy.map(\.operation).first { $0.id == id } ?? sources.lazy.flatMap { $0() }.first { $0.id == id }
    }

    /// The store's snapshots and compactions, as it reports them (on its snapshot thread).
    func observe(_ activity: StoreActivity) {
        let kind = activity.kind == .snapshot ? TrackedOperation.Kind.snapshot : TrackedOperation.Kind.compaction
        switch activity.phase {
        case .started:
            let id = begin(kind, detail: ["seq": .int(Int(clamping: activity.seq))])
            state.withLock { $0.storeRunning[activity.kind] = id }
        case .finished, .failed:
            guard let id = state.withLock({ $0.storeRunning.removeValue(forKey: activity.kind) }) else { return }
            if case .failed(let error) = activity.phase { finish(id, error: error) } else { finish(id) }
        }
    }

    private static func keep(_ operation: Kept, in state: inout State) {
        guard state.finished.count == finishedLimit else {
            state.finished.append(operation)
            return
        }
        state.finished[state.oldest] = operation
        state.oldest = (state.oldest + 1) % finishedLimit
    }
}
