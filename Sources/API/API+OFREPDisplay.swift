import Rules

extension API {
    /// OFREP has no `INVALIDATED` reason: an invalidated display flag answers `DISABLED` and says why in
    /// `metadata.invalidated` (`actionPerformed`, `dismissed` or `displayCountExceeded`), beside the flag's metadata.
    func ofrepInvalidated(_ body: inout JSONObject, flag: Flag, context: UserContext) {
        body["reason"] = "DISABLED"
        let state = context.display[flag.key] ?? DisplayState()
        let reason = state.invalidation(maxCount: flag.display?.maxCount) ?? .displayCountExceeded
        var metadata = flag.metadata
        metadata["invalidated"] = .string(reason.rawValue)
        body["metadata"] = .object(metadata)
    }
}
