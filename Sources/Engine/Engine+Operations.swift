import Rules
import Store

extension Engine {
    /// Why a pending fire could not be cancelled.
    public enum CancelError: Error, Sendable {
        /// No operation has that id (or it was a fire long settled and no longer listed).
        case notFound
        /// The operation exists but is not a pending delayed fire: only those can be cancelled.
        case notCancellable(TrackedOperation)
        /// The cancellation could not be logged.
        case store(StoreError)
    }

    /// Every operation: the tracker's running and finished ones, then each pending delayed fire (`idle`, id
    /// `fire-<n>`, detail `{user, trigger, due}`), earliest due first, then the tracker's other sources.
    public var operationList: [TrackedOperation] {
        let fires = timekeeper.pendingFires.map(Self.pendingOperation)
        let all = operations.operations
        let running = all.filter { $0.state == .loading }
        return running + fires + all.filter { $0.state != .loading }
    }

    /// What `/v1/admin/status` shows of the operations: counts by kind and state, and the next pending fire.
    public var operationSummary: JSONValue {
        let list = operationList
        var counts: [String: [String: Int]] = [:]
        for operation in list { counts[operation.kind, default: [:]][operation.state.rawValue, default: 0] += 1 }
        var byKind = JSONObject()
        for (kind, states) in counts.sorted(by: { $0.key < $1.key }) {
            byKind[kind] = .object(JSONObject(states.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }))
        }
        let pending = timekeeper.pendingFires
        return [
            "counts": .object(byKind), "pendingFires": .int(pending.count), "droppedFires": .int(timekeeper.droppedFires),
            "nextDueFire": pending.first.map { Self.pendingOperation($0).json } ?? .null
        ]
    }

    /// Cancels a pending delayed fire before it comes due: it leaves the clock at once, and a log record (action
    /// `cancelPendingFire`) keeps the act in the user's history. The completion gets the cancelled operation and
    /// the seq it was logged at.
    public func cancelOperation(_ id: String, completion: @escaping @Sendable (Result<(TrackedOperation, UInt64), CancelError>) -> Void) {
        guard let number = Self.fireNumber(id), let fire = timekeeper.cancelFire(number) else {
            if let known = operations.operation(id) {
                completion(.failure(.notCancellable(known)))
            } else {
                completion(.failure(.notFound))
            }
            return
        }
        let now = clock.now()
        let mutation = Mutation(user: fire.user, now: now, actions: [.cancelPendingFire(trigger: fire.trigger, due: fire.due)])
        store.write(mutation) { [operations, metrics] result in
            switch result {
            case .failure(let error):
                completion(.failure(.store(error)))
            case .success(let applied):
                var cancelled = Self.pendingOperation(fire)
                cancelled.state = .failed
                cancelled.finishedAt = now
                cancelled.error = "cancelled"
                cancelled.detail["outcome"] = "cancelled"
                cancelled.detail["seq"] = .int(Int(clamping: applied.seq))
                operations.record(cancelled)
                metrics.increment("pending_fires_cancelled_total")
                completion(.success((cancelled, applied.seq)))
            }
        }
    }

    /// A reload as an operation: `loading` while it runs, then `loaded` or `failed`; a reload refused because
    /// another was loading did nothing and is not listed.
    func tracked(_ reload: () -> ReloadOutcome) -> ReloadOutcome {
        let id = operations.begin(TrackedOperation.Kind.reload, detail: ["source": .string(rules.path ?? "embedded")])
        let outcome = reload()
        switch outcome {
        case .busy: operations.discard(id)
        case .loaded(let set): operations.finish(id, detail: ["version": .string(set.version)])
        case .failed(let error): operations.finish(id, error: "the rules have \(error.errors.count) error(s); the previous rules keep serving")
        }
        return outcome
    }

    /// The recovery at start, measured by the composition root before the engine existed.
    public func recordRecovery(startedAt: Instant, finishedAt: Instant, detail: JSONObject) {
        operations.record(
            TrackedOperation(
                id: "", kind: TrackedOperation.Kind.recovery, state: .loaded, startedAt: startedAt, finishedAt: finishedAt, detail: detail))
    }

    static let ownKinds: Set<String> = [
        TrackedOperation.Kind.reload, TrackedOperation.Kind.snapshot, TrackedOperation.Kind.compaction, TrackedOperation.Kind.recovery,
        TrackedOperation.Kind.delayedFire
    ]

    /// `fire-<n>` exactly as listed: digits only, no sign, no leading zero, never more than fits.
    static func fireNumber(_ id: String) -> Int? {
        guard id.hasPrefix("fire-") else { return nil }
        let digits = id.utf8.dropFirst(5)
        guard !digits.isEmpty, digits.count <= 18, digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    static func pendingOperation(_ fire: PendingFires.Fire) -> TrackedOperation {
        TrackedOperation(
            id: "fire-\(fire.id)", kind: TrackedOperation.Kind.delayedFire, state: .idle, startedAt: fire.scheduledAt,
            detail: ["user": .string(fire.user), "trigger": .string(fire.trigger), "due": .string(ISO8601.format(fire.due))])
    }

    /// A fire that came due, as a finished operation: `loaded` whether it fired or was skipped (the detail says
    /// which and why).
    static func settledFire(_ fire: PendingFires.Fire, outcome: String, at: Instant) -> TrackedOperation {
        var operation = pendingOperation(fire)
        operation.state = .loaded
        operation.finishedAt = at
        operation.detail["outcome"] = .string(outcome)
        return operation
    }
}
