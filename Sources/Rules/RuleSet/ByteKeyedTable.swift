/// A read-only table keyed by strings compared as bytes: a rule set's flags and triggers. Two flag keys that are
/// canonically equivalent (NFC and NFD `café`) are two flags, as keys are bytes everywhere; a `[String: Flag]` would
/// treat them as one, and building it from both would trap.
///
/// Looked up on every evaluation, so it hashes with `String` (fast) and confirms the bytes of the one entry found;
/// keys that `String` equates but whose bytes differ — only ever a handful — live in a short side list.
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
    @usableFromInline var equivalents: [Entry] = []

    /// Later entries with the same bytes replace earlier ones (the compiler refuses duplicates before this).
    init<S: Sequence>(_ entries: S) where S.Element == (String, Value) {
        for (key, value) in entries {
            if let existing = primary[key], !sameUTF8(existing.key, key) {
                equivalents.removeAll { sameUTF8($0.key, key) }
                equivalents.append(Entry(key: key, value: value))
            } else {
                primary[key] = Entry(key: key, value: value)
            }
        }
    }

    @inlinable
    public subscript(key: String) -> Value? {
        guard let entry = primary[key] else { return nil }
        if sameUTF8(entry.key, key) { return entry.value }
        for other in equivalents where sameUTF8(other.key, key) { return other.value }
        return nil
    }

    public var count: Int { primary.count + equivalents.count }
    public var isEmpty: Bool { primary.isEmpty }
    public var keys: [String] { primary.values.map(\.key) + equivalents.map(\.key) }
    public var values: [Value] { primary.values.map(\.value) + equivalents.map(\.value) }
}
