import Engine
import HTTP
import Rules

/// What a write asks the hub about its user (`Timekeeper.written`): whether any stream hears the user, with which
/// app versions, and whether one wants the user's context; answered under the hub's lock.
extension StreamHub {
    public func hasSubscribers(for user: String) -> Bool {
        withState { state in
            let key = ByteKey(user)
            return hasSubscribers(key, closed: recentlyClosed(key, in: &state), in: state)
        }
    }

    func hasSubscribers(_ user: ByteKey, closed: [ClosedStream], in state: State) -> Bool {
        !(state.byUser[user]?.isEmpty ?? true) || !closed.isEmpty
    }

    /// One lock and one hash of the user for the three questions a write asks (`Timekeeper.written`).
    public func interest(in user: String) -> ListenerInterest {
        withState { state in
            // Lapsed closed global versions go first, so the shortcut below comes back once they have all lapsed.
            if !state.closedGlobalVersions.isEmpty {
                let now = MonotonicInstant.now
                if state.closedGlobalVersions.values.contains(where: { $0 <= now }) {
                    state.closedGlobalVersions = state.closedGlobalVersions.filter { $0.value > now }
                }
            }
            // No stream open or remembered anywhere (a daemon serving only requests): the same answer without
            // hashing the user four times.
            if state.byUser.isEmpty, state.recentlyClosed.isEmpty, state.versionsByUser.isEmpty, state.globalVersions.isEmpty,
                state.closedGlobalVersions.isEmpty, state.globalWithContext == 0, state.withContextByUser.isEmpty,
                state.globalContextWantedUntil == nil,
                state.contextWantedUntil.isEmpty
            {
                return ListenerInterest(versions: [], wantsContext: false, hasSubscribers: false)
            }
            let key = ByteKey(user)
            let closed = recentlyClosed(key, in: &state)
            return ListenerInterest(
                versions: appVersions(key, closed: closed, in: state), wantsContext: wantsContext(key, in: &state),
                hasSubscribers: hasSubscribers(key, closed: closed, in: state))
        }
    }

    /// The user's recently closed streams still inside the window; expired ones are dropped on the way.
    func recentlyClosed(_ user: ByteKey, in state: inout State) -> [ClosedStream] {
        guard let streams = state.recentlyClosed[user] else { return [] }
        let now = MonotonicInstant.now
        let live = streams.filter { $0.until > now }
        if live.count != streams.count { state.recentlyClosed[user] = live.isEmpty ? nil : live }
        return live
    }

    public func wantsContext(for user: String) -> Bool {
        withState { state in wantsContext(ByteKey(user), in: &state) }
    }

    func wantsContext(_ user: ByteKey, in state: inout State) -> Bool {
        if state.globalWithContext > 0 || state.withContextByUser[user] != nil { return true }
        // No clock read unless a resume window is open.
        guard state.globalContextWantedUntil != nil || !state.contextWantedUntil.isEmpty else { return false }
        let now = MonotonicInstant.now
        if let until = state.globalContextWantedUntil {
            if until > now { return true }
            // Over: forgotten, so later writes skip the clock again.
            state.globalContextWantedUntil = nil
        }
        guard let until = state.contextWantedUntil[user] else { return false }
        if until > now { return true }
        state.contextWantedUntil[user] = nil
        return false
    }

    public func appVersions(hearing user: String) -> [String?] {
        withState { state in
            let key = ByteKey(user)
            return appVersions(key, closed: recentlyClosed(key, in: &state), in: state)
        }
    }

    func appVersions(_ user: ByteKey, closed: [ClosedStream], in state: State) -> [String?] {
        var versions = Array(state.globalVersions.keys)
        if !state.closedGlobalVersions.isEmpty {
            let now = MonotonicInstant.now
            for (version, until) in state.closedGlobalVersions where until > now && !versions.contains(version) { versions.append(version) }
        }
        if let own = state.versionsByUser[user] {
            for version in own.keys where !versions.contains(version) { versions.append(version) }
        }
        for stream in closed where !versions.contains(stream.appVersion) { versions.append(stream.appVersion) }
        return versions
    }
}
