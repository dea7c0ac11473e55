import Rules

/// How much donation history each (user, event) keeps for windows.
public struct HistoryPolicy: Sendable, Equatable {
    public var maxEntries: Int
    public var maxAge: Milliseconds

    public init(maxEntries: Int = 1000, maxAge: Milliseconds = 90 * 86_400_000) {
        self.maxEntries = maxEntries
        self.maxAge = maxAge
    }
}
