import Rules
import Synchronization

/// Shares one copy of each context key among all users. Keys like `promo_banner_count` are too long for Swift's
/// inline small strings, so without this every user would carry its own heap copy of every key. Bounded, so a
/// client inventing endless keys costs memory per user, never a table that grows forever.
///
/// Keyed by bytes: with `String` keys an NFD key would be handed back as the NFC copy already in the table, and the
/// user would store a different key from the one it wrote.
enum KeyInterner {
    private static let table = Mutex<[ByteKey: String]>([:])
    static let limit = 65_536
    static let maxBytes = 256

    static func intern(_ key: String) -> String {
        // Small strings live inline in the struct: nothing to share.
        // Small strings live inline in the struct: nothing to share. Long ones are rare and not worth a table slot
        // (the table is bounded by entries, so it must only hold strings of bounded size).
        if key.utf8.count <= 15 || key.utf8.count > maxBytes { return key }
        return table.withLock { table in
            if let shared = table[ByteKey(key)] { return shared }
            if table.count < limit { table[ByteKey(key)] = key }
            return key
        }
    }
}
