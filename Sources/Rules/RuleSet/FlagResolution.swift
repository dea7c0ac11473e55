/// The flags of a document being compiled, compiled once each, on first need: in declaration order by the rule
/// set, or earlier when a `prerequisite` names one, so a dependent can hold its prerequisite compiled in (as a
/// `ref` holds its spec) and evaluation never looks a flag up.
struct FlagResolution {
    /// The `flags` section as written.
    var definitions: JSONObject = [:]
    var format: RuleSetCompiler.Format = .auto
    var flagd = FlagdCompiler(evaluators: [:], setMetadata: [:])
    /// Each flag compiled so far; `nil` for one that failed (its diagnostics are already reported).
    var compiled: [ByteKey: Flag?] = [:]
    /// The flags being compiled, outermost first: meeting one of them again is a cycle.
    var compiling: [String] = []
    /// Each compiled flag's expansion (see `SpecCompiler.expansion`), added again wherever it is inlined.
    var sizes: [ByteKey: Int] = [:]
    /// Each compiled flag's depth (see `SpecCompiler.depth`), added below wherever it is inlined.
    var depths: [ByteKey: Int] = [:]
    /// Each flag's place in declaration order (`Flag.position`), given when it is compiled: whoever compiles it
    /// first (the set, or a dependent's prerequisite) makes the one object both hold.
    private(set) var positions: [ByteKey: Int] = [:]

    init() {}

    init(definitions: JSONObject, format: RuleSetCompiler.Format, flagd: FlagdCompiler) {
        self.definitions = definitions
        self.format = format
        self.flagd = flagd
        for (index, key) in definitions.keys.enumerated() { positions[ByteKey(key)] = index }
    }

    /// The cycle `key` would close, as `a → b → a`, or `nil`.
    func cycle(through key: String) -> String? {
        guard let start = compiling.firstIndex(where: { $0.bytesEqual(key) }) else { return nil }
        return (compiling[start...] + [key]).joined(separator: " → ")
    }
}
