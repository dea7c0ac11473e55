import HTTP
import HTTPServer
import Rules

/// A stream's close, applied the next time the hub's state is locked (`withState`): the user's open-stream counts
/// go down, and what a resume needs is remembered for the window (the closed stream's values and version, the
/// user's following, their context events), within the bounds of `StreamHub+ResumeMemory`.
extension StreamHub {
    func remove(_ number: Int, reason: EventStream.CloseReason, from state: inout State) {
        guard let subscriber = state.subscribers.removeValue(forKey: number) else { return }
        if reason == .slowConsumer { state.dropped += 1 }
        // One instant for every window this close opens: the user stays followed exactly as long as the closed
        // stream is remembered.
        let until = MonotonicInstant.now.advanced(byNanoseconds: retainForNanoseconds)
        if let user = subscriber.user.map({ ByteKey($0) }) {
            state.byUser[user]?[number] = nil
            if state.byUser[user]?.isEmpty == true {
                state.byUser[user] = nil
                stopFollowing(user, until: until, in: &state)
            }
            if let count = state.versionsByUser[user]?[subscriber.appVersion] {
                state.versionsByUser[user]![subscriber.appVersion] = count > 1 ? count - 1 : nil
                if state.versionsByUser[user]!.isEmpty { state.versionsByUser[user] = nil }
            }
            if !subscriber.refetchOnly, !subscriber.lastSeen.isEmpty {
                var closedStreams = state.recentlyClosed[user] ?? []
                closedStreams.append(
                    ClosedStream(
                        appVersion: subscriber.appVersion, lastSeen: subscriber.lastSeen, until: until))
                // A client that reconnects in a loop must not grow this: the oldest are the least likely to resume.
                if closedStreams.count > Self.closedStreamsPerUser {
                    let trimmed = closedStreams.prefix(closedStreams.count - Self.closedStreamsPerUser).map(\.appVersion)
                    closedStreams.removeFirst(trimmed.count)
                    let stillHeard = Set(closedStreams.map(\.appVersion) + (state.versionsByUser[user].map { Array($0.keys) } ?? []))
                    if trimmed.contains(where: { !isEvaluated($0, besides: stillHeard, in: state) }) {
                        breakExactness(of: user, in: &state)
                    }
                }
                state.recentlyClosed[user] = closedStreams
                pruneRecentlyClosed(&state)
            }
            if subscriber.includeContext, let count = state.withContextByUser[user] {
                state.withContextByUser[user] = count > 1 ? count - 1 : nil
                state.contextWantedUntil[user] = until
                pruneContextWanted(&state)
            }
            boundResumeMemory(&state)
        } else {
            state.global.removeAll { $0 == number }
            if state.global.isEmpty { stopFollowing(nil, until: until, in: &state) }
            if let count = state.globalVersions[subscriber.appVersion] {
                state.globalVersions[subscriber.appVersion] = count > 1 ? count - 1 : nil
                // The version stays evaluated for the window, as a closed user stream's does; without it, the
                // window counted this stream's resume as exact though nobody evaluated its version (found in review).
                if count == 1, let version = subscriber.appVersion, subscriber.types?.contains("flag") ?? true {
                    rememberClosedGlobalVersion(version, until: until, in: &state)
                }
            }
            if subscriber.includeContext {
                state.globalWithContext -= 1
                state.globalContextWantedUntil = until
            }
        }
    }

    /// As `pruneContextWanted`, for recently closed streams.
    func pruneRecentlyClosed(_ state: inout State) {
        guard state.recentlyClosed.count >= state.recentlyClosedPruneAt else { return }
        let now = MonotonicInstant.now
        state.recentlyClosed = state.recentlyClosed.compactMapValues { streams in
            let live = streams.filter { $0.until > now }
            return live.isEmpty ? nil : live
        }
        state.recentlyClosedPruneAt = max(1024, state.recentlyClosed.count * 2)
    }

    /// Drops expired entries once the table has doubled since the last sweep: amortized O(1) per close.
    func pruneContextWanted(_ state: inout State) {
        guard state.contextWantedUntil.count >= state.contextWantedPruneAt else { return }
        let now = MonotonicInstant.now
        state.contextWantedUntil = state.contextWantedUntil.filter { $0.value > now }
        state.contextWantedPruneAt = max(1024, state.contextWantedUntil.count * 2)
    }
}
