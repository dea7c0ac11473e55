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
        /// Set when a version of the user's stopped being evaluated while they stayed followed
        /// (`breakExactness`): a resume from an id before it is not exact, even if a global stream would vouch.
        var brokenBefore: EventID?

        func isActive(at now: @autoclosure () -> MonotonicInstant) -> Bool {
            guard let until else { return true }
            return until > now()
        }
    }

    /// Whether `user`'s events are kept: a stream hears them, or heard them inside the resume window. Lapsed
    /// entries are dropped on the way, so a daemon whose streams are all long gone answers without a clock read.
    func isFollowed(_ user: ByteKey, in state: inout State) -> Bool {
        if !state.global.isEmpty { return true }
        // No stream open or remembered anywhere (a daemon serving only requests): no clock read, no hash.
        if state.globalFollowing == nil, state.following.isEmpty { return false }
        let now = MonotonicInstant.now
        if let global = state.globalFollowing {
            if global.isActive(at: now) { return true }
            state.globalFollowing = nil
        }
        guard let following = state.following[user] else { return false }
        if following.isActive(at: now) { return true }
        state.following[user] = nil
        return false
    }

    /// Whether every event a new stream for `user` (`nil`: every user) wants after `id` is still kept: the hub
    /// followed them, without a gap, since `id` or earlier.
    func followedWithoutGap(user: ByteKey?, since id: EventID, in state: State) -> Bool {
        let now = MonotonicInstant.now
        if let user, let own = state.following[user], own.isActive(at: now), let broken = own.brokenBefore, id < broken {
            return false
        }
        if let global = state.globalFollowing, global.isActive(at: now), global.since <= id { return true }
        guard let user, let following = state.following[user], following.isActive(at: now) else { return false }
        return following.since <= id
    }

    /// Called before a stream's first values are read (`API.openStream`): its user (`nil`: every user) is followed
    /// from now on, so whatever is published while the values are read is kept and follows them
    /// (`subscribe(readAt:)`). Followed for one resume window at first: a stream that never opens (a refused
    /// request) leaves nothing behind for longer. Returns the id the values are read at.
    public func beginFollowing(_ user: String?) -> EventID {
        withState { state in
            follow(user.map { ByteKey($0) }, in: &state, until: MonotonicInstant.now.advanced(byNanoseconds: retainForNanoseconds))
            return state.lastID
        }
    }

    /// Follows `user` (`nil`: every user) until `until` (`nil`: while a stream is open), without a gap if the window
    /// had not lapsed. `exactFrom`: a resume from that id was exact, so everything after it is kept, and the
    /// stretch followed without a gap starts there at the latest (a global stream may have kept it).
    func follow(_ user: ByteKey?, in state: inout State, until: MonotonicInstant?, exactFrom: EventID? = nil) {
        let now = MonotonicInstant.now
        let current = user.map { state.following[$0] } ?? state.globalFollowing
        var following = current.flatMap { $0.isActive(at: now) ? $0 : nil } ?? Following(since: state.lastID, until: until)
        if let exactFrom, exactFrom < following.since { following.since = exactFrom }
        if let held = following.until {
            following.until = until.map { max($0, held) }
        }
        if let user {
            state.following[user] = following
            boundResumeMemory(&state)
        } else {
            state.globalFollowing = following
        }
    }

    /// The last stream of `user` (or the last global stream) closed: followed for the resume window still.
    func stopFollowing(_ user: ByteKey?, until: MonotonicInstant, in state: inout State) {
        guard let user else {
            state.globalFollowing?.until = until
            return
        }
        state.following[user]?.until = until
        pruneFollowing(&state)
    }

    /// Whether answers for `version` are still evaluated: the version-less ones always are (`Timekeeper.written`),
    /// others while a stream listens with them (`versions`, a user's own, or a global one).
    func isEvaluated(_ version: String?, besides versions: Set<String?>, in state: State) -> Bool {
        guard let version else { return true }
        if versions.contains(version) || state.globalVersions[version] != nil { return true }
        return state.closedGlobalVersions[version].map { $0 > MonotonicInstant.now } ?? false
    }

    /// Global streams whose version is kept evaluated after they closed, at most: the versions are the clients'
    /// (`X-App-Version`), and each one evaluates every user's writes again.
    static let closedGlobalVersionsKept = 16

    /// The last global stream of `version` closed: every user's writes stay evaluated for it until `until`. Past
    /// `closedGlobalVersionsKept`, the one nearest to lapsing is let go, and resumes from ids already sent get
    /// `reset`, since its global stream would miss that version's changes from then on.
    func rememberClosedGlobalVersion(_ version: String, until: MonotonicInstant, in state: inout State) {
        state.closedGlobalVersions[version] = until
        guard state.closedGlobalVersions.count > Self.closedGlobalVersionsKept else { return }
        let now = MonotonicInstant.now
        state.closedGlobalVersions = state.closedGlobalVersions.filter { $0.value > now }
        guard state.closedGlobalVersions.count > Self.closedGlobalVersionsKept,
            let soonest = state.closedGlobalVersions.min(by: { $0.value < $1.value })
        else { return }
        state.closedGlobalVersions[soonest.key] = nil
        breakExactness(of: nil, in: &state)
    }

    /// A stream nobody evaluates for any more was let go while its user (`nil`: every user) stays followed: a
    /// resume from an id already sent would count as exact and miss what its version saw from here on. It gets
    /// `reset` instead; ids sent from now on resume exactly as before.
    func breakExactness(of user: ByteKey?, in state: inout State) {
        // Just past the last id sent: ids only grow, so this is past any earlier break too.
        let next = EventID(seq: state.lastID.seq, index: state.lastID.index + 1)
        if let user {
            state.following[user]?.since = next
            state.following[user]?.brokenBefore = next
        } else {
            state.globalFollowing?.since = next
        }
    }

    /// Drops lapsed entries once the table has doubled since the last sweep: amortized O(1) per close.
    private func pruneFollowing(_ state: inout State) {
        guard state.following.count >= state.followingPruneAt else { return }
        let now = MonotonicInstant.now
        state.following = state.following.filter { $0.value.isActive(at: now) }
        state.followingPruneAt = max(1024, state.following.count * 2)
    }
}
