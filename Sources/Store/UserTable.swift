import Rules

/// One shard's users: decoded contexts, and users recovered from a snapshot still held as their records
/// (`EncodedContext`) until something touches them. A user is in one of the two, never both. Owned by its shard's
/// lock in `UserStore`; a copy (a snapshot's capture) shares both maps until either side writes.
///
/// A log record recovered after the snapshot for a user still held as its record waits with it (`deferred`) and
/// is applied when the user is decoded: a start replaying 100 000 records decoded some 100 000 users before it
/// could answer (17 k instructions each, a third of a million-user start), most of which the first minutes of
/// traffic never read. The same reducer calls run on the same states, only later.
public struct UserTable: Sendable {
    var users: [ByteKey: UserContext]
    private(set) var encoded: [ByteKey: EncodedContext] = [:]
    /// Recovered records, in log order, of users in `encoded` (none erases: an erasing record decodes its user at
    /// once), and the history policy they were replayed under.
    private(set) var deferred: [ByteKey: [Mutation]] = [:]
    private var deferredPolicy = HistoryPolicy()
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
    /// A record for a user still held as its record waits for the user's first decoding (`deferred`), unless it
    /// erases: whether the user exists after it is then known only by applying it.
    mutating func replay(_ mutations: [Mutation], policy: HistoryPolicy) {
        for mutation in mutations {
            let user = ByteKey(mutation.user)
            if !mutation.erases, !encoded.isEmpty, encoded.index(forKey: user) != nil {
                deferred[user, default: []].append(mutation)
                deferredPolicy = policy
                continue
            }
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
        var context = record.decode(interning: &keys!)
        if !deferred.isEmpty, let records = deferred.removeValue(forKey: user) {
            Self.apply(records, to: &context, policy: deferredPolicy)
        }
        users[user] = context
        if encoded.isEmpty {
            encoded = [:]
            keys = nil
            deferred = [:]
        }
        return context
    }

    /// Decodes up to `limit` users whose recovered records wait for them (`UserStore.settleDeferred`): how many it
    /// decoded, and whether any still wait. Each call takes `limit` off the waiting, so a loop of them ends.
    mutating func settleDeferred(limit: Int) -> (decoded: Int, more: Bool) {
        var decoded = 0
        for user in Array(deferred.keys.prefix(limit)) {
            if decodeIfEncoded(user) != nil {
                decoded += 1
            } else {
                deferred[user] = nil
            }
        }
        return (decoded, !deferred.isEmpty)
    }

    /// A user still held as its record, as it stands when records wait for it: the record decoded and the records
    /// applied, the table left as it is (a snapshot writes the user so); nil when none waits (the record is the user).
    func replayed(_ user: ByteKey, _ record: EncodedContext, interning interner: inout StringInterner) -> UserContext? {
        guard !deferred.isEmpty, let records = deferred[user] else { return nil }
        var context = record.decode(interning: &interner)
        Self.apply(records, to: &context, policy: deferredPolicy)
        return context
    }

    /// The deferred records, as `replay` would have applied them to the decoded user.
    private static func apply(_ records: [Mutation], to context: inout UserContext, policy: HistoryPolicy) {
        for mutation in records {
            _ = try? Reducer.applyInPlace(mutation, toExisting: &context, policy: policy, limits: .unlimited)
        }
    }

    /// Every user decoded, leaving the table as it is (tests, tools, a whole-state comparison).
    public var decodedUsers: [ByteKey: UserContext] {
        guard !encoded.isEmpty else { return users }
        var all = users
        var interner = StringInterner()
        all.reserveCapacity(count)
        for (user, record) in encoded { all[user] = replayed(user, record, interning: &interner) ?? record.decode(interning: &interner) }
        return all
    }
}
