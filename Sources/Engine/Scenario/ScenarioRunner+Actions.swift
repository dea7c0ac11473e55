import Rules
import Store

/// A step's actions, run through the engine as the daemon runs them.
extension ScenarioRunner {
    /// Runs one action through the engine; a refusal is returned as a message.
    func perform(_ action: Scenario.StepAction) -> String? {
        let now = clock.now()
        switch action.kind {
        case .donate(let user, let event, let times, let appVersion):
            for _ in 0..<times {
                if let failure = wait({
                    engine.donate(user: user, event: event, at: now, appVersion: appVersion ?? configuration.appVersion, now: now, completion: $0)
                }) {
                    return "donation of \(event) for \(user) refused: \(failure)"
                }
            }
            return nil
        case .ops(let user, let items):
            var actions: [Action] = []
            for (index, item) in items.enumerated() {
                do throws(InvalidField) {
                    actions.append(try OperationDecoder.decode(item, at: "ops[\(index)]", now: now))
                } catch {
                    return error.message
                }
            }
            return wait { engine.update(Mutation(user: user, now: now, actions: actions), appVersion: configuration.appVersion, completion: $0) }
                .map { "ops for \(user) refused: \($0)" }
        case .reset(let user, let event):
            return wait {
                engine.update(
                    Mutation(user: user, now: now, actions: [.resetDonations(event: event)]), appVersion: configuration.appVersion, completion: $0)
            }
            .map { "reset of \(event) for \(user) refused: \($0)" }
        case .erase(let user):
            return wait { engine.update(Mutation(user: user, now: now, actions: [.erase]), appVersion: configuration.appVersion, completion: $0) }
                .map { "erase of \(user) refused: \($0)" }
        case .reload(let rules):
            switch engine.reloadRules(using: { .success(rules) }) {
            case .loaded: return nil
            case .failed(let error): return "reload refused: \(error.diagnostics.first?.message ?? "invalid rules")"
            case .busy: return "reload refused: another reload is running"
            }
        case .display(let user, let flag, let event):
            return performDisplay(user: user, flag: flag, event: event, now: now)
        }
    }

    /// The memory store acknowledges on the caller's thread, so the completion has run when the call returns.
    func wait(_ write: (@escaping @Sendable (Result<WriteOutcome, StoreError>) -> Void) -> Void) -> String? {
        let outcome = OutcomeBox()
        write { result in outcome.set(result) }
        switch outcome.get() {
        case .success?: return nil
        case .failure(let error)?: return Self.describe(error)
        case nil: return "the write was not acknowledged"
        }
    }

    static func describe(_ error: StoreError) -> String {
        switch error {
        case .rejected(let refusal): "\(refusal.field): \(refusal.message)"
        case .storageFailed: "storage failed"
        case .capacity(let limit): "the user cap (\(limit)) is reached"
        }
    }
}

/// Holds a write's result between its completion and the runner reading it (same thread; `Sendable` for the closure).
private final class OutcomeBox: @unchecked Sendable {
    private var result: Result<WriteOutcome, StoreError>?
    func set(_ value: Result<WriteOutcome, StoreError>) { result = value }
    func get() -> Result<WriteOutcome, StoreError>? { result }
}
