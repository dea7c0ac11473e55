extension UserContext {
    /// This context with `top` laid over it: every key `top` has replaces the same key here, keys only here stay,
    /// segments are the union, and `launchedAt` / `tz` come from `top` when it has them. How `POST /v1/evaluate`
    /// with a `user` and OFREP read a request's context over the stored one: the request wins, key by key.
    public func overlaid(by top: UserContext) -> UserContext {
        var merged = self
        if let launchedAt = top.launchedAt { merged.launchedAt = launchedAt }
        if let zone = top.timeZone { merged.timeZone = zone }
        for entry in top.counters.entries { merged.counters[entry.key] = entry.value }
        for entry in top.events.entries { merged.events[entry.key] = entry.value }
        for entry in top.flags.entries { merged.flags[entry.key] = entry.value }
        for entry in top.attributes.entries { merged.attributes[entry.key] = entry.value }
        for segment in top.segments { merged.segments.insert(segment) }
        for entry in top.donations.entries { merged.donations[entry.key] = entry.value }
        for entry in top.triggerFires.entries { merged.triggerFires[entry.key] = entry.value }
        merged.overlayExpiries(of: top)
        for entry in top.display.entries { merged.display[entry.key] = entry.value }
        return merged
    }
}
