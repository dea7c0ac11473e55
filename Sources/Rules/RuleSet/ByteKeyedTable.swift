/// A read-only table keyed by strings compared as bytes: a rule set's flags and triggers. Two flag keys that are
/// canonically equivalent (NFC and NFD `café`) are two flags, as keys are bytes everywhere; a `[String: Flag]` would
/// treat them as one, and building it from both would trap.
///
/// Looked up on every evaluation, so it hashes with `String` (fast) and confirms the bytes of the one entry found;
/// keys that `String` equates but whose bytes differ live in a side table keyed by their bytes.
public struct ByteKeyedTable<Value: Sendable>: Sendable {
    // Inlinable, so the engine's lookups are specialized: through the generic entry points every lookup asked
    // the runtime for the entry type's metadata (~2 k instructions a lookup, two lookups a donation).
    @usableFromInline struct Entry: Sendable {
        @usableFromInline let key: String
        @usableFromInline let value: Value

        @usableFromInline init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    @usableFromInline var primary: [String: Entry] = [:]
    /// Keyed by bytes: a rule file may spell one name many ways (each accented letter composed or not gives 2^n
    /// spellings), and a list searched per insert and per lookup made building such a table quadratic.
    @usableFromInline var equivalents: [ByteKey: Value] = [:]

    /// Later entries with the same bytes replace earlier ones (the compiler refuses duplicates before this).
    init<S: Sequence>(_ entries: S) where S.Element == (String, Value) {
        for (key, value) in entries {
            if let existing = primary[key], !sameUTF8(existing.key, key) {
                equivalents[ByteKey(key)] = value
            } else {
                primary[key] = Entry(key: key, value: value)
            }
        }
    }

    @inlinable
    public subscript(key: String) -> Value? {
        guard let entry = primary[key] else { return nil }
        if sameUTF8(entry.key, key) { return entry.value }
        return equivalents.isEmpty ? nil : equivalents[ByteKey(key)]
    }

    public var count: Int { primary.count + equivalents.count }
    public var isEmpty: Bool { primary.isEmpty }
    public var keys: [String] { primary.values.map(\.key) + equivalents.keys.map(\.string) }
    public var values: [Value] { primary.values.map(\.value) + Array(equivalents.values) }
}
