/// A validated, immutable rule set: flags and decisions, triggers, and the named specs they were built from.
public struct RuleSet: Sendable {
    public let flags: ByteKeyedTable<Flag>
    /// Flag keys in declaration order.
    public let flagKeys: [String]
    /// The flags in declaration order, so evaluating them all looks none up.
    let orderedFlags: [Flag]
    public let triggers: ByteKeyedTable<Trigger>
    public let triggerKeys: [String]
    /// The merged document as written.
    public let source: JSONValue
    /// A content hash of the source: equal rule sets have equal versions.
    public let version: String
    /// Non-fatal diagnostics found while loading.
    public let warnings: [Diagnostic]
    /// Each flag's context inputs, computed once per rule set.
    let flagInputs: ByteKeyedTable<Set<ContextInput>>

    init(flags: [Flag], triggers: [Trigger], source: JSONValue, warnings: [Diagnostic]) {
        self.flags = ByteKeyedTable(flags.map { ($0.key, $0) })
        flagKeys = flags.map(\.key)
        orderedFlags = flags
        self.triggers = ByteKeyedTable(triggers.map { ($0.key, $0) })
        triggerKeys = triggers.map(\.key)
        self.source = source
        version = ContentHash.hex(JSONWriter.write(source))
        self.warnings = warnings
        flagInputs = ByteKeyedTable(flags.compactMap { flag in flag.inputs.map { (flag.key, $0) } })
    }

    /// An empty set (no flags, no triggers).
    public static let empty = RuleSet(flags: [], triggers: [], source: ["flags": [:]], warnings: [])
}

/// Loading failed: every error (and warning) found, none loaded.
public struct RuleSetError: Error, Sendable, Equatable, CustomStringConvertible {
    public let diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// FNV-1a 64-bit as 16 hex digits: stable across runs and platforms (unlike `Hasher`), for versions and ETags.
public enum ContentHash {
    public static func hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
