import HTTP
import Rules

/// Which users' flag and trigger events the resume window keeps.
///
/// A `Last-Event-ID` comes from a stream: a client resumes what it heard (docs/api.md, "Ids and resuming"). So a
/// user's events are kept only while the user is followed: from the moment a stream for them opens (or a global
/// stream does) until `retainFor` after the last one closed, the same window a closed stream is remembered for.
/// Most writes are for users nobody streams; keeping each of their events cost a tenth of a donation's
/// instructions (building, sizing and holding an event nobody could ask for), and pushed followed users' events out
/// of the window's count and bytes.
///
/// A resume is exact only over a stretch the hub followed without a gap (`Following.since`): a stream for a user
/// never followed, or followed again after a lapse, that names an older id gets `reset`, as an id older than the
/// window does.
extension StreamHub {
    /// One user followed (or every user, for global streams): since which id their events are all kept, and until
    /// when, once no stream is open (`nil` while one is).
    struct Following {
        var since: EventID
        var until: MonotonicInstant?

        func isActive(at now: @autoclosure () -> MonotonicInstant) -> Bool {
            guard let until else { return true }
            return until > now()
        }
    }

    /// Whether `user`'s events are kept: a stream hears them, or heard them inside the resume window.
    func isFollowed(_ user: ByteKey, in state: State) -> Bool {
        if !state.global.isEmpty { return true }
        // No stream open or remembered anywhere (a daemon serving only requests): no clock read, no hash.
        if state.globalFollowing == nil, state.following.isEmpty { return false }
        let now = MonotonicInstant.now
        if let global = state.globalFollowing, global.isActive(at: now) { return true }
        return state.following[user]?.isActive(at: now) ?? false
    }

    /// Whether every event a new stream for `user` (`nil`: every user) wants after `id` is still kept: the hub
    /// followed them, without a gap, since `id` or earlier. Asked before the new stream counts as following.
    func followedWithoutGap(user: ByteKey?, since id: EventID, in state: State) -> Bool {
        let now = MonotonicInstant.now
        if let global = state.globalFollowing, global.isActive(at: now), global.since <= id { return true }
        guard let user, let following = state.following[user], following.isActive(at: now) else { return false }
        return following.since <= id
    }

    /// A stream opened: its user (or, global, every user) is followed from now on, or goes on being followed
    /// without a gap if the window had not lapsed.
    func follow(_ user: ByteKey?, in state: inout State) {
        let now = MonotonicInstant.now
        if let user {
            if let following = state.following[user], following.isActive(at: now) {
                state.following[user]?.until = nil
            } else {
                state.following[user] = Following(since: state.lastID, until: nil)
            }
        } else if let global = state.globalFollowing, global.isActive(at: now) {
            state.globalFollowing?.until = nil
        } else {
            state.globalFollowing = Following(since: state.lastID, until: nil)
        }
    }

    /// The last stream of `user` (or the last global stream) closed: followed for the resume window still.
    func stopFollowing(_ user: ByteKey?, in state: inout State) {
        let until = MonotonicInstant.now.advanced(byNanoseconds: retainForNanoseconds)
        guard let user else {
            state.globalFollowing?.until = until
            return
        }
        state.following[user]?.until = until
        pruneFollowing(&state)
    }

    /// Drops lapsed entries once the table has doubled since the last sweep: amortized O(1) per close.
    private func pruneFollowing(_ state: inout State) {
        guard state.following.count >= state.followingPruneAt else { return }
        let now = MonotonicInstant.now
        state.following = state.following.filter { $0.value.isActive(at: now) }
        state.followingPruneAt = max(1024, state.following.count * 2)
    }
}
