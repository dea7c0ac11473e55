import Foundation
import Rules
import Synchronization

/// The rule set being served, swapped whole (STYLE habit 6), with the idle/loading/loaded/failed status of the
/// last load so a failed reload keeps the last good set visible.
public final class LiveRules: Sendable {
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

    private let state: Mutex<(rules: RuleSet, status: Status)>

    public init(_ rules: RuleSet, source: String, at date: Date = Date()) {
        state = Mutex((rules, Status(phase: .loaded, version: rules.version, loadedAt: date, source: source, error: [])))
    }

    public var current: RuleSet { state.withLock { $0.rules } }
    public var status: Status { state.withLock { $0.status } }

    /// Loads the path (or the embedded default), validates it whole, then swaps; on failure the old set stays.
    @discardableResult
    public func reload(from path: String?) -> Result<RuleSet, RuleSetError> {
        state.withLock { $0.status.phase = .loading }
        let result = LiveRules.load(path)
        state.withLock { current in
            switch result {
            case .success(let rules):
                current.rules = rules
                current.status = Status(phase: .loaded, version: rules.version, loadedAt: Date(), source: path ?? "embedded", error: [])
            case .failure(let error):
                current.status.phase = .failed
                current.status.error = error.diagnostics
            }
        }
        return result
    }

    public static func load(_ path: String?) -> Result<RuleSet, RuleSetError> {
        guard let path else { return RuleSetLoader.load(text: DefaultRules.json, name: "embedded rules.example.json") }
        return RuleSetLoader.load(path: path)
    }
}
