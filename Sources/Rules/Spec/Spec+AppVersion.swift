/// Which specs read the request's app version: only their answers can differ between two requests for the same user
/// at the same instant. A write made with an app version is also diffed for the other versions streams listen
/// with; flags that read no version changed exactly as they did for the write's own.
extension Spec {
    /// Every case is listed, so a new leaf has to say whether it reads the version.
    public var readsAppVersion: Bool {
        switch self {
        case .all(let children), .any(let children), .none(let children), .atLeast(_, let children):
            return children.contains { $0.readsAppVersion }
        case .not(let child), .ref(_, let child): return child.readsAppVersion
        case .appVersion: return true
        case .donationVersion(_, _, let test): return test.operand == .requestAppVersion
        case .prerequisite(let flag, _): return flag.readsAppVersion
        case .always, .flag, .counter, .maxCount, .elapsedSince, .sinceLaunch, .eventExists, .eventDate, .dateRange, .hourIn,
            .weekday, .segment, .segmentsAny, .segmentsAll, .subscription, .attribute, .donations, .donationRecency, .rollout,
            .backoffCooldown, .dayNightCooldown, .launchAge, .number, .comparison, .history, .display:
            return false
        }
    }
}

extension Flag {
    /// A flagd definition reads the user's context and targeting key, never the app version.
    public var readsAppVersion: Bool {
        switch body {
        case .boolean(let spec): spec.readsAppVersion
        case .cases(let cases, _): cases.contains { $0.when.readsAppVersion }
        case .flagd: false
        case .pick(let pick): pick.cases.contains { $0.when.readsAppVersion }
        }
    }
}
