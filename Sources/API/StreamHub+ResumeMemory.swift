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
        // Never below zero: `Options` is public, and a negative bound would ask for a negative count of users kept.
        let limit = max(0, options.resumeUsers)
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

        // At least one: the user just remembered (a lease, a close) is the newest, and is kept.
        let keep = max(1, limit / 4 * 3 + limit % 4 * 3 / 4)
        // Each user once, by the latest instant any table remembers them until: a returning user's fresh lease
        // (`beginFollowing`, taken before their stream's values are read) keeps them, however old their closed
        // streams; ranked by one table alone, a user could be forgotten between the lease and the subscribe, and
        // the new stream then missed a change published meanwhile (found in review).
        var lapsing: [ByteKey: MonotonicInstant] = [:]
        func remember(_ user: ByteKey, until: MonotonicInstant) {
            guard state.byUser[user] == nil else { return }
            if let known = lapsing[user], known >= until { return }
            lapsing[user] = until
        }
        for (user, streams) in state.recentlyClosed { for stream in streams { remember(user, until: stream.until) } }
        for (user, following) in state.following { if let until = following.until { remember(user, until: until) } }
        for (user, until) in state.contextWantedUntil { remember(user, until: until) }
        var forgotten: [ByteKey] = []
        if lapsing.count > limit {
            forgotten = lapsing.sorted { $0.value < $1.value }.prefix(lapsing.count - keep).map(\.key)
        }
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
        if !forgotten.isEmpty, let global = state.globalFollowing, global.isActive(at: now) { breakExactness(of: nil, in: &state) }
    }
}
