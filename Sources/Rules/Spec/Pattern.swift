/// A compiled regular expression, compared by its source.
public final class Pattern: Sendable, Equatable {
    public let source: String
    private nonisolated(unsafe) let regex: Regex<AnyRegexOutput>

    public init?(_ source: String) {
        guard let regex = try? Regex(source) else { return nil }
        self.source = source
        self.regex = regex
    }

    public func matches(_ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }

    public static func == (lhs: Pattern, rhs: Pattern) -> Bool { lhs.source == rhs.source }
}
