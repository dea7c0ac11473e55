/// A read-only table keyed by strings compared as bytes: a rule set's flags and triggers. Two flag keys that are
/// canonically equivalent (NFC and NFD `café`) are two flags, as keys are bytes everywhere; a `[String: Flag]` would
/// treat them as one, and building it from both would trap.
public struct ByteKeyedTable<Value: Sendable>: Sendable {
    private var storage: [ByteKey: Value] = [:]

    /// Later entries with the same bytes replace earlier ones (the compiler refuses duplicates before this).
    init<S: Sequence>(_ entries: S) where S.Element == (String, Value) {
        for (key, value) in entries { storage[ByteKey(key)] = value }
    }

    public subscript(key: String) -> Value? { storage[ByteKey(key)] }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public var keys: [String] { storage.keys.map(\.string) }
    public var values: [Value] { Array(storage.values) }
}
