/// A validated, immutable rule set: flags and decisions, triggers, and the named specs they were built from.
public struct RuleSet: Sendable {
    public let flags: ByteKeyedTable<Flag>
    /// Flag keys in declaration order.
    public let flagKeys: [String]
    /// The flags in declaration order, so evaluating them all looks none up.
    let orderedFlags: [Flag]
    /// The flags in declaration order, each at its `position`.
    public var declaredFlags: [Flag] { orderedFlags }
    public let triggers: ByteKeyedTable<Trigger>
    public let triggerKeys: [String]
    /// The triggers in declaration order, so a donation's triggers are found by position (`triggerIndex`).
    let orderedTriggers: [Trigger]
    /// Which triggers each event reaches.
    let triggerIndex: TriggerIndex
    /// The merged document as written.
    public let source: JSONValue
    /// A content hash of the source: equal rule sets have equal versions.
    public let version: String
    /// Non-fatal diagnostics found while loading.
    public let warnings: [Diagnostic]
    /// Each flag's context inputs, computed once per rule set.
    let flagInputs: ByteKeyedTable<Set<ContextInput>>
    /// The same inputs inverted, by flag position, for the write path (`flagsAffected(from:to:)`).
    let inputIndex: InputIndex
    /// The flags whose answer can depend on the request's app version, by position.
    let appVersionReaders: FlagBits

    init(flags compiled: [Flag], triggers: [Trigger], source: JSONValue, warnings: [Diagnostic]) {
        // The compiler numbers flags in declaration order as it makes them (so a prerequisite holds the very object
        // the set does); a set built otherwise is numbered here.
        let numbered = compiled.indices.allSatisfy { compiled[$0].position == $0 }
        let flags = numbered ? compiled : compiled.enumerated().map { $0.element.at(position: $0.offset) }
        self.flags = ByteKeyedTable(flags.map { ($0.key, $0) })
        flagKeys = flags.map(\.key)
        orderedFlags = flags
        self.triggers = ByteKeyedTable(triggers.map { ($0.key, $0) })
        triggerKeys = triggers.map(\.key)
        orderedTriggers = triggers
        triggerIndex = TriggerIndex(triggers)
        self.source = source
        version = ContentHash.hex(JSONWriter.write(source))
        self.warnings = warnings
        flagInputs = ByteKeyedTable(flags.compactMap { flag in flag.inputs.map { (flag.key, $0) } })
        inputIndex = InputIndex(flags: flags)
        var readers = FlagBits(count: flags.count)
        for flag in flags where flag.readsAppVersion { readers.insert(flag.position) }
        appVersionReaders = readers
    }

    /// The triggers a donation of `event` reaches (`Trigger.listens(to:)`), in declaration order.
    public func listeners(of event: String) -> TriggerSelection {
        triggerIndex.selection(listeningTo: event, in: orderedTriggers)
    }

    /// Whether this set's flag (by its position) can answer differently for two app versions.
    public func readsAppVersion(_ flag: Flag) -> Bool { appVersionReaders.contains(flag.position) }

    /// Whether what the flag reads is unknown (`Flag.inputs == nil`): a flagd definition, or a flag reaching one
    /// through a prerequisite. Such an answer may also change with the clock at instants `nextChange` does not give
    /// (JSON Logic may read `$flagd.timestamp`). Looked up, not computed: `inputs` builds sets.
    public func readsUnknownInputs(_ flag: Flag) -> Bool { inputIndex.readsUnknown(flag.position) }

    /// An empty set (no flags, no triggers).
    public static let empty = RuleSet(flags: [], triggers: [], source: ["flags": [:]], warnings: [])
}
