import Rules
import Store

extension ScenarioRunner {
    /// A scenario's `{"display": "flagKey", "user": "u", "event": "shown"}`, through the engine as the route does.
    func performDisplay(user: String, flag: String, event: DisplayState.Event, now: Instant) -> String? {
        let refusal = RefusalBox()
        let failure = wait { completion in
            do throws(DisplayRefusal) {
                try engine.display(
                    user: user, flag: flag, event: event, at: now, now: now, appVersion: configuration.appVersion, completion: completion)
            } catch {
                refusal.error = error
            }
        }
        switch refusal.error {
        case .unknownFlag?: return "display of \(flag) for \(user) refused: no flag named '\(flag)'"
        case .notDisplayed?: return "display of \(flag) for \(user) refused: flag '\(flag)' declares no display"
        case nil: return failure.map { "display of \(flag) for \(user) refused: \($0)" }
        }
    }
}

/// The refusal, if any, read right after the synchronous call (same thread).
private final class RefusalBox: @unchecked Sendable {
    var error: DisplayRefusal?
}
