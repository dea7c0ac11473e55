extension UserContext {
    /// Whether the context holds the value an expiry names.
    public func holds(_ kind: ValueExpiries.Kind, _ key: String) -> Bool {
        switch kind {
        case .attribute: return attributes.contains(key)
        case .flag: return flags.contains(key)
        case .segment: return segments.contains(key)
        }
    }

    /// Drops every value whose expiry is at or before `now`, with its expiry: what the context is at `now`
    /// (docs/api.md, "Expiring values"). Costs one emptiness test when nothing expires.
    @inlinable
    public mutating func removeExpired(at now: Instant) {
        guard expiries.hasExpired(at: now) else { return }
        dropExpired(at: now)
    }

    /// This context as it reads at `now`.
    @inlinable
    public func removingExpired(at now: Instant) -> UserContext {
        guard expiries.hasExpired(at: now) else { return self }
        var live = self
        live.dropExpired(at: now)
        return live
    }

    @usableFromInline
    mutating func dropExpired(at now: Instant) {
        for entry in expiries.removeExpired(at: now) { removeValue(entry.kind, entry.key) }
    }

    /// Removes one value (and its expiry).
    public mutating func removeValue(_ kind: ValueExpiries.Kind, _ key: String) {
        switch kind {
        case .attribute: attributes[key] = nil
        case .flag: flags[key] = nil
        case .segment: segments.remove(key)
        }
        expiries[kind, key] = nil
    }
}

extension UserContext {
    /// After `top`'s values were laid over this context: a value `top` gives keeps `top`'s expiry, or none, never
    /// the one the value it replaced had.
    mutating func overlayExpiries(of top: UserContext) {
        guard !expiries.isEmpty || !top.expiries.isEmpty else { return }
        for entry in expiries.entries where top.holds(entry.kind, entry.key) { expiries[entry.kind, entry.key] = nil }
        for entry in top.expiries.entries { expiries[entry.kind, entry.key] = entry.at }
    }
}
