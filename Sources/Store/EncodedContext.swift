import Rules

/// A user's context as its snapshot record, not yet decoded.
///
/// A cold start with a million users spent most of its time building contexts (maps, interned keys, fresh heap
/// pages) that the first minutes of traffic mostly never read. The daemon now keeps each recovered user as the
/// bytes of its record and decodes it the first time anything touches the user (`UserTable`); the encoding is
/// a fraction of the decoded size (376 against about 1 300 bytes for a typical user), so users never touched also
/// cost less memory.
///
/// Only a record `ContextCodec.check` accepted is kept, and `check` fails wherever `decode` would: decoding one
/// later cannot fail.
struct EncodedContext: Sendable {
    /// The record as the snapshot holds it: the user's id, then the context (`ContextCodec.encode`).
    let record: [UInt8]
    /// Expiries or display accounting follow the common sections: a snapshot decodes such a user to leave out
    /// values expired by then, as it does for decoded users.
    let hasTrailingSections: Bool

    /// The context, its strings made through `interner`.
    func decode(interning interner: inout StringInterner) -> UserContext {
        var reader = BinaryReader(record)
        do throws(BinaryReader.Failure) {
            return try ContextCodec.decode(&reader, interning: &interner).1
        } catch {
            // Unreachable: `check` accepted these bytes and fails wherever `decode` does (pinned by
            // SnapshotLoadTests and the store-decoders fuzz target).
            preconditionFailure("a checked snapshot record failed to decode: \(error)")
        }
    }
}
