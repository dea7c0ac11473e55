import Foundation
import Rules
import Synchronization

/// The rule set being served, swapped whole, with the idle/loading/loaded/failed status of the last load so a
/// failed reload keeps the last good set visible. It knows where its rules come from (`path`, `format`), so every
/// reload — SIGHUP, the admin route — loads the same thing; `Engine.reloadRules()` is the one way in.
public final class RulesHost: Sendable {
    public enum Phase: String, Sendable {
        case idle, loading, loaded, failed
    }

    public struct Status: Sendable {
        public var phase: Phase
        public var version: String
        public var loadedAt: Date
        public var source: String
        public var error: [Diagnostic]
    }

    /// The set behind a reference: a read takes one retain, not the set's dozen fields (a flag read takes the set on
    /// every request).
    public final class Served: Sendable {
        public let rules: RuleSet
        /// This set's answers counted by flag position (metrics): counted through the reference a read holds anyway.
        public let evaluations: EvaluationLedger.Counts
        /// Given when the set is served, never given again: what an answer kept for this set remembers of it, where
        /// a weak reference sent every retain and release of the set through the runtime's side table.
        public let number: UInt64

        private static let served = Atomic<UInt64>(0)

        init(_ rules: RuleSet, ledger: EvaluationLedger) {
            self.rules = rules
            evaluations = ledger.counts(for: rules)
            number = Self.served.add(1, ordering: .relaxed).newValue
        }
    }

    private let state: Mutex<(served: Served, status: Status)>
    /// The served set's number, stored after every swap: a thread that holds the set of this number reads it
    /// without the lock (`withServed`). Numbers are never given twice, so no other host's set has it.
    private let servedNumber: Atomic<UInt64>
    /// This host among every host the process made, never given twice: what a thread's reader tells hosts apart by.
    let identity: UInt64
    private static let hosts = Atomic<UInt64>(0)
    /// The rule file (`nil`: the embedded example rules) and how to read it.
    public let path: String?
    public let format: RuleSetCompiler.Format
    /// Answers served by flag key, across reloads.
    public let evaluationLedger: EvaluationLedger

    public init(_ rules: RuleSet, path: String?, format: RuleSetCompiler.Format = .auto, at date: Date = Date()) {
        self.path = path
        self.format = format
        let ledger = EvaluationLedger()
        evaluationLedger = ledger
        let served = Served(rules, ledger: ledger)
        servedNumber = Atomic(served.number)
        identity = Self.hosts.add(1, ordering: .relaxed).newValue
        state = Mutex((served, Status(phase: .loaded, version: rules.version, loadedAt: date, source: path ?? "embedded", error: [])))
    }

    public var current: RuleSet { served.rules }
    /// The set being served, by reference: read a member through it without copying the whole set.
    /// Through the lock, held by nobody else: for the threads that read the rules now and then (a thread's own
    /// reader, `withServed`, would keep an old set alive until that thread read again).
    public var served: Served { state.withLock { $0.served } }

    /// Lends `body` the set being served, without retaining it: what a request reads the rules through. The calling
    /// thread keeps the set it last read (`ServedReader`) and asks the lock only when a reload has served another
    /// since. A reload's answer is sent after the swap is stored, so any read that follows it finds the new set; a
    /// read nested in another on the same thread finds the set the outer one has.
    public func withServed<Value, Failure: Error>(_ body: (Served) throws(Failure) -> Value) throws(Failure) -> Value {
        let current = servedNumber.load(ordering: .acquiring)
        return try ServedReader.withCurrent { reader in
            Result(catching: { () throws(Failure) -> Value in
                try reader.lend(host: identity, current: current, fresh: { state.withLock { $0.served } }, body)
            })
        }.get()
    }
    public var status: Status { state.withLock { $0.status } }

    /// Loads the path (or the embedded default), validates it whole, then swaps; on failure the old set stays.
    /// `nil` when another reload is already loading (the caller answers 409).
    func reload() -> Result<RuleSet, RuleSetError>? {
        reload { RulesHost.load(path, format: format) }
    }

    /// The same swap with rules from elsewhere (a scenario's `reload` step names its own file or inline set).
    func reload(using load: () -> Result<RuleSet, RuleSetError>) -> Result<RuleSet, RuleSetError>? {
        guard tryBeginLoading() else { return nil }
        let result = load()
        state.withLock { current in
            switch result {
            case .success(let rules):
                current.served = Served(rules, ledger: evaluationLedger)
                servedNumber.store(current.served.number, ordering: .releasing)
                current.status = Status(phase: .loaded, version: rules.version, loadedAt: Date(), source: path ?? "embedded", error: [])
            case .failure(let error):
                current.status.phase = .failed
                current.status.error = error.diagnostics
            }
        }
        return result
    }

    /// Claims the loading phase; false when a load is already running.
    func tryBeginLoading() -> Bool {
        state.withLock { current -> Bool in
            guard current.status.phase != .loading else { return false }
            current.status.phase = .loading
            return true
        }
    }

    public static func load(_ path: String?, format: RuleSetCompiler.Format = .auto) -> Result<RuleSet, RuleSetError> {
        guard let path else { return RuleSetLoader.load(text: DefaultRules.json, name: "embedded rules.example.json") }
        return RuleSetLoader.load(path: path, format: format)
    }
}
