import Rules
import Store

/// Why a display event was refused before anything was written.
public enum DisplayRefusal: Error, Equatable, Sendable {
    /// No flag of that key in the rules in force.
    case unknownFlag(String)
    /// The flag declares no `display`: it has no display state to keep.
    case notDisplayed(String)
}

extension Engine {
    /// `POST /v1/users/{u}/flags/{key}/display`: one display event through the one write path. The flag's rule
    /// (`maxCount`, whether the event is in `invalidateOn`) is read from the rules in force now and logged with the
    /// event, so replay gives the same state under any rules (docs/rules.md, "Display accounting").
    public func display(
        user: String, flag key: String, event: DisplayState.Event, at: Instant, now: Instant, appVersion: String?,
        completion: @escaping @Sendable (Result<WriteOutcome, StoreError>) -> Void
    ) throws(DisplayRefusal) {
        guard let flag = rules.current.flags[key] else { throw .unknownFlag(key) }
        guard let display = flag.display else { throw .notDisplayed(key) }
        let action = Action.recordDisplay(
            flag: key, event: event, at: at, maxCount: display.maxCount, invalidates: display.invalidateOn.contains(event))
        write(Mutation(user: user, now: now, actions: [action]), kind: .display, appVersion: appVersion, completion: completion)
    }
}
