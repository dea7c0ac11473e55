/// What specd knows of one display flag for one user (docs/rules.md, "Display accounting"): TipKit's per-tip
/// record. The app reports what the user saw; the rules read it back as eligibility.
public struct DisplayState: Sendable, Equatable {
    /// What an app reports about a display (`POST /v1/users/{u}/flags/{key}/display`).
    public enum Event: String, Sendable, CaseIterable {
        case shown, dismissed, actionPerformed
    }

    /// Why a display stopped for good (TipKit's `Tip.InvalidationReason`).
    public enum InvalidationReason: String, Sendable, CaseIterable {
        case actionPerformed, dismissed, displayCountExceeded
    }

    public struct Invalidation: Sendable, Equatable {
        public var reason: InvalidationReason
        public var at: Instant

        public init(reason: InvalidationReason, at: Instant) {
            self.reason = reason
            self.at = at
        }
    }

    /// Saturates at `Int.max`: a count restored from elsewhere may be that high, and must not trap.
    public var shownCount: Int = 0
    public var firstShown: Instant?
    public var lastShown: Instant?
    /// Set once and kept: an invalidated display never comes back (TipKit), whatever is reported later.
    public var invalidated: Invalidation?

    public init(shownCount: Int = 0, firstShown: Instant? = nil, lastShown: Instant? = nil, invalidated: Invalidation? = nil) {
        self.shownCount = shownCount
        self.firstShown = firstShown
        self.lastShown = lastShown
        self.invalidated = invalidated
    }

    /// One reported event. `maxCount` and `invalidates` are the rule's, resolved when the event was written and
    /// logged with it, so replaying gives the same state whatever the rules say then.
    public mutating func record(_ event: Event, at: Instant, maxCount: Int?, invalidates: Bool) {
        switch event {
        case .shown:
            shownCount = shownCount < .max ? shownCount + 1 : .max
            // Earliest and latest by date, like donations: a backdated `at` can become `firstShown`.
            if firstShown.map({ at < $0 }) ?? true { firstShown = at }
            if lastShown.map({ at > $0 }) ?? true { lastShown = at }
            if invalidated == nil, let maxCount, shownCount >= maxCount {
                invalidated = Invalidation(reason: .displayCountExceeded, at: at)
            }
        case .dismissed, .actionPerformed:
            if invalidated == nil, invalidates {
                invalidated = Invalidation(reason: event == .dismissed ? .dismissed : .actionPerformed, at: at)
            }
        }
    }

    /// Invalidated for good, or by the count under the rules in force (`maxCount` may have been lowered since).
    public func invalidation(maxCount: Int?) -> InvalidationReason? {
        if let invalidated { return invalidated.reason }
        if let maxCount, shownCount >= maxCount { return .displayCountExceeded }
        return nil
    }

    /// `{shownCount, firstShown, lastShown, invalidated: {reason, at} | null}` (docs/api.md, "Contexts").
    public var json: JSONValue {
        var object: JSONObject = ["shownCount": .int(shownCount)]
        object["firstShown"] = firstShown.map { .string(ISO8601.format($0)) } ?? .null
        object["lastShown"] = lastShown.map { .string(ISO8601.format($0)) } ?? .null
        object["invalidated"] =
            invalidated.map { ["reason": .string($0.reason.rawValue), "at": .string(ISO8601.format($0.at))] } ?? .null
        return .object(object)
    }
}
