import HTTP
import Rules

/// The resume window's memory of users who have no open stream, bounded by count (`Options.resumeUsers`).
///
/// Three tables remember such a user for `retainFor`: the streams that closed (`recentlyClosed`, each with the
/// last value of every flag, about 2 KB), whether the user is still followed (`following`, which a stream about
/// to open also leases), and whether their context events are still made (`contextWantedUntil`). A client
/// controls how many users enter them: one stream per made-up user id, opened and closed in a loop (or asked for
/// with `HEAD`), and time alone bounded them. Past the bound, the users nearest to lapsing are forgotten, as if
/// their window had ended: their resume gets `reset`, never a replay that misses what nobody kept for them.
///
/// Users with an open stream are never forgotten here: the stream cap (`maxStreams`) bounds them already.
extension StreamHub {
    /// After anything that remembers a user: past the bound in any table, lapsed entries go first; if that is not
    /// enough, the users nearest to lapsing are forgotten down to three quarters of the bound, so the sorting this
    /// takes happens once per quarter of the bound's insertions (amortized O(log n) each).
    func boundResumeMemory(_ state: inout State) {
        let limit = options.resumeUsers
        let openUsers = state.byUser.count
        // Entries of users with open streams do not count against the bound (a followed user's open entry, a
        // reopened user's closed streams of other versions).
        // Subtracted, not added to the limit: the config file may set it as high as `Int.max`.
        guard
            state.recentlyClosed.count - openUsers > limit || state.following.count - openUsers > limit
                || state.contextWantedUntil.count - openUsers > limit
        else { return }
        let now = MonotonicInstant.now
        state.recentlyClosed = state.recentlyClosed.compactMapValues { streams in
            let live = streams.filter { $0.until > now }
            return live.isEmpty ? nil : live
        }
        state.following = state.following.filter { $0.value.isActive(at: now) }
        state.contextWantedUntil = state.contextWantedUntil.filter { $0.value > now }

        let keep = limit / 4 * 3 + limit % 4 * 3 / 4
        var forgotten = Set<ByteKey>()
        func forgetNearestToLapsing(_ entries: [(user: ByteKey, until: MonotonicInstant)]) {
            guard entries.count > limit else { return }
            for entry in entries.sorted(by: { $0.until < $1.until }).prefix(entries.count - keep) { forgotten.insert(entry.user) }
        }
        forgetNearestToLapsing(
            state.recentlyClosed.compactMap { user, streams in
                guard state.byUser[user] == nil, let newest = streams.map(\.until).max() else { return nil }
                return (user, newest)
            })
        forgetNearestToLapsing(
            state.following.compactMap { user, following in
                following.until.flatMap { state.byUser[user] == nil ? (user, $0) : nil }
            })
        forgetNearestToLapsing(state.contextWantedUntil.compactMap { user, until in state.byUser[user] == nil ? (user, until) : nil })
        for user in forgotten {
            state.recentlyClosed[user] = nil
            state.following[user] = nil
            state.contextWantedUntil[user] = nil
        }
        state.recentlyClosedPruneAt = max(1024, state.recentlyClosed.count * 2)
        state.followingPruneAt = max(1024, state.following.count * 2)
        state.contextWantedPruneAt = max(1024, state.contextWantedUntil.count * 2)
        state.forgottenForResume += forgotten.count
        // A global stream follows every user, so a forgotten user's resume would still count as exact through it,
        // though their closed streams' versions and context are no longer evaluated. From here on, a resume from an
        // id already sent is exact only through a user's own following.
        if !forgotten.isEmpty, let global = state.globalFollowing, global.isActive(at: now) {
            state.globalFollowing!.since = max(global.since, EventID(seq: state.lastID.seq, index: state.lastID.index + 1))
        }
    }
}
