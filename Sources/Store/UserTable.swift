import Rules

/// One shard's users: decoded contexts, and users recovered from a snapshot still held as their records
/// (`EncodedContext`) until something touches them. A user is in one of the two, never both. Owned by its shard's
/// lock in `UserStore`; a copy (a snapshot's capture) shares both maps until either side writes.
public struct UserTable: Sendable {
    var users: [ByteKey: UserContext]
    private(set) var encoded: [ByteKey: EncodedContext] = [:]
    /// The keys met while decoding this shard's records (`StringInterner.keys`): none of a user's values. Made at
    /// the first record decoded, dropped with the last.
    private var keys: StringInterner?

    init(users: [ByteKey: UserContext] = [:]) {
        self.users = users
    }

    public var count: Int { users.count + encoded.count }

    mutating func reserveEncoded(_ capacity: Int) {
        encoded.reserveCapacity(capacity)
    }

    /// A recovered user, kept as its checked record; false (nothing changed) when the id is already here.
    mutating func addEncoded(_ user: ByteKey, _ context: EncodedContext) -> Bool {
        guard users.isEmpty || users[user] == nil else { return false }
        guard let earlier = encoded.updateValue(context, forKey: user) else { return true }
        encoded[user] = earlier
        return false
    }

    /// Applies recovered records in log order. A record the reducer refused was refused live too, and never logged;
    /// skipping it is exact. No caps (per-user or user count): the record was acknowledged, whatever the caps are now.
    mutating func replay(_ mutations: [Mutation], policy: HistoryPolicy) {
        for mutation in mutations {
            let user = ByteKey(mutation.user)
            _ = decodeIfEncoded(user)
            if !mutation.erases, let index = users.index(forKey: user) {
                _ = try? Reducer.applyInPlace(mutation, toExisting: &users.values[index], policy: policy, limits: .unlimited)
            } else {
                _ = try? Reducer.applyInPlace(mutation, to: &users[user], policy: policy, limits: .unlimited)
            }
        }
    }

    /// Decodes the user if it is still a record, and keeps it decoded: the context, or nil when the user was not
    /// held as a record (`UserStore` counts the records left).
    mutating func decodeIfEncoded(_ user: ByteKey) -> UserContext? {
        guard !encoded.isEmpty, let record = encoded.removeValue(forKey: user) else { return nil }
        // Keys only: a table of values would keep an erased user's (an email as an attribute) after the user is
        // gone, where erasing must remove them from memory at once.
        if keys == nil { keys = StringInterner.keys(limit: 1_024) }
        let context = record.decode(interning: &keys!)
        users[user] = context
        if encoded.isEmpty {
            encoded = [:]
            keys = nil
        }
        return context
    }

    /// Every user decoded, leaving the table as it is (tests, tools, a whole-state comparison).
    public var decodedUsers: [ByteKey: UserContext] {
        guard !encoded.isEmpty else { return users }
        var all = users
        var interner = StringInterner()
        all.reserveCapacity(count)
        for (user, record) in encoded { all[user] = record.decode(interning: &interner) }
        return all
    }
}
