/// A compiled regular expression, compared by its source (docs/rules.md, `matches`). Matched by `PatternProgram`
/// in time linear in the text, whatever the pattern; the syntax is `PatternCompiler`'s.
public final class Pattern: Sendable, Equatable {
    public let source: String
    private let program: PatternProgram

    /// `nil` when the source is no pattern `PatternCompiler` accepts (`check` says why).
    public init?(_ source: String) {
        guard let program = try? PatternCompiler.compile(source) else { return nil }
        self.source = source
        self.program = program
    }

    /// Why `source` is no pattern, for the `invalid_pattern` diagnostic; `.success` when it is one.
    public static func check(_ source: String) -> Result<Void, PatternError> {
        do throws(PatternCompiler.Failure) {
            _ = try PatternCompiler.compile(source)
            return .success(())
        } catch {
            switch error {
            case .syntax(let reason): return .failure(PatternError(message: reason))
            case .unsupported(let construct):
                return .failure(PatternError(message: "\(construct) are not supported (matching stays linear in the text)"))
            case .tooLarge:
                return .failure(
                    PatternError(
                        message:
                            "the pattern compiles past \(PatternCompiler.maxInstructions) instructions (counts to \(PatternCompiler.maxCount), groups nested \(PatternCompiler.maxNesting) deep)"
                    ))
            }
        }
    }

    /// Whether `text` contains a match (a search, like JavaScript's `RegExp.test`).
    public func matches(_ text: String) -> Bool {
        program.matches(text)
    }

    public static func == (lhs: Pattern, rhs: Pattern) -> Bool { lhs.source == rhs.source }
}

/// What is wrong with a pattern's source.
public struct PatternError: Error, Sendable, Equatable {
    public let message: String
}
