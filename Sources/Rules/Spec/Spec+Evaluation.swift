extension RuleSet {
    /// Evaluates one flag. Never throws: an unknown key is an `ERROR` evaluation with `FLAG_NOT_FOUND`.
    public func evaluate(_ key: String, _ input: EvaluationInput) -> Evaluation {
        guard let flag = flags[key] else { return .notFound(key) }
        return flag.evaluate(input)
    }

    /// Every flag, in declaration order.
    public func evaluateAll(_ input: EvaluationInput) -> [Evaluation] {
        orderedFlags.map { $0.evaluate(input) }
    }
}

extension Flag {
    public func evaluate(_ input: EvaluationInput) -> Evaluation {
        // A display flag the gate holds back answers false / its fallback (docs/rules.md, "Display accounting").
        if enabled, let display {
            let gate = display.gate(key, input.context, now: input.now)
            if case .open = gate {} else { return heldBack(gate, input) }
        }
        switch body {
        case .flagd(let flagd):
            return flagd.evaluate(key: key, enabled: enabled, input)
        case .boolean(let spec):
            guard enabled else {
                return Evaluation(key: key, value: .bool(false), reason: .disabled, matched: false)
            }
            let holds = spec.holds(input)
            return Evaluation(
                key: key, value: .bool(holds), variant: nil, reason: holds ? .targetingMatch : .defaultValue,
                matched: holds)
        case .cases(let cases, let fallback):
            guard enabled else {
                let decided = fallback.map { resolve($0, input) }
                return Evaluation(
                    key: key, value: decided?.value, variant: decided?.variant, reason: .disabled,
                    matched: false)
            }
            let index = Self.decidingCase(cases, input)
            if index < cases.count {
                let decided = resolve(cases[index].outcome, input)
                return Evaluation(
                    key: key, value: decided.value, variant: decided.variant,
                    reason: decided.isSplit ? .split : .targetingMatch, index: index, matched: true)
            }
            guard let fallback else {
                return Evaluation(key: key, value: nil, reason: .defaultValue, matched: false)
            }
            let decided = resolve(fallback, input)
            let reason: Evaluation.Reason = decided.isSplit ? .split : (cases.isEmpty ? .staticValue : .defaultValue)
            return Evaluation(
                key: key, value: decided.value, variant: decided.variant, reason: reason, index: cases.count,
                matched: true)
        case .pick(let pick):
            return evaluatePick(pick, input)
        }
    }

    func resolve(_ outcome: Outcome, _ input: EvaluationInput) -> (value: JSONValue, variant: String?, isSplit: Bool) {
        switch outcome {
        case .value(let value, let variant):
            return (value, variant, false)
        case .split(let entries, let prefix):
            let chosen = entries[Bucketing.pick(prefix + input.request.userID, weights: entries.map(\.weight))]
            return (chosen.value, chosen.variant, true)
        }
    }
}

extension Spec {
    /// Whether any of `children` holds (`holds: true`) or fails (`holds: false`): the test `any`, `all` and
    /// `none` make. Every node is a pure test of the input, so the order they are asked in changes no answer,
    /// only its cost: the cheap ones first (a counter, an attribute: one lookup), the costly ones after, and
    /// only if still needed (a history counts the donations per calendar period, a zone's hour reads the
    /// calendar, a rollout hashes the user). `power-user-badge` in the example rules asks for 5 active days out of
    /// 7 before a score most users do not have; answered by the score, the days were counted twice per donation.
    static func anyChild(_ children: [Spec], holds wanted: Bool, _ input: EvaluationInput) -> Bool {
        children.withUnsafeBufferPointer { children in
            guard let first = children.baseAddress else { return false }
            // Each child is asked where it lies (`holdsInPlace`): taken out of the array, it was retained and
            // released.
            let child = UnsafeMutablePointer(mutating: first)
            var deferred = false
            for index in 0..<children.count {
                if child[index].isCostlyInPlace() {
                    deferred = true
                } else if child[index].holdsInPlace(input) == wanted {
                    return true
                }
            }
            guard deferred else { return false }
            for index in 0..<children.count where child[index].isCostlyInPlace() && child[index].holdsInPlace(input) == wanted {
                return true
            }
            return false
        }
    }

    /// `holds`, asked of a node through its address. Mutating only to be handed the address, and writes nothing: a
    /// rule set is read by every thread at once. Through a plain pointer the node was copied first, since the
    /// compiler may not assume that memory unchanged across the call; an exclusive access it may.
    mutating func holdsInPlace(_ input: EvaluationInput) -> Bool { holds(input) }

    /// `isCostly`, asked the same way.
    mutating func isCostlyInPlace() -> Bool { isCostly }

    /// Whether a test may cost more than a lookup and a comparison: asked after the others (`anyChild`). Cases
    /// matched without binding their payloads where they can be: a binding copies (retains) it.
    var isCostly: Bool {
        switch self {
        case .always, .flag, .counter, .maxCount, .elapsedSince, .sinceLaunch, .eventExists, .eventDate, .dateRange,
            .segment, .segmentsAny, .segmentsAll, .subscription, .donationRecency, .donationVersion, .appVersion,
            .number, .comparison, .donations(_, _, within: .none):
            return false
        // A pattern runs a regular expression.
        case .attribute(_, .matches): return true
        case .attribute: return false
        // As costly as what they wrap: `{"ref": "launched-30s-ago"}` is a launch time, `{"not": {"flag": …}}` a flag.
        case .not(let child), .ref(_, let child): return child.isCostly
        default: return true
        }
    }

    /// Whether the spec holds for the input (docs/rules.md, "Spec nodes", missing-data rules included).
    public func holds(_ input: EvaluationInput) -> Bool {
        // `input.context` is read in place: binding it to a local would copy (and retain) every collection.
        switch self {
        case .all(let children): return !Self.anyChild(children, holds: false, input)
        case .any(let children): return Self.anyChild(children, holds: true, input)
        case .none(let children): return !Self.anyChild(children, holds: true, input)
        case .not(let child): return !child.holds(input)
        case .atLeast(let count, let children):
            return children.withUnsafeBufferPointer { buffer in
                // Asked where they lie, as `anyChild` asks.
                var held = 0
                if let first = buffer.baseAddress {
                    let child = UnsafeMutablePointer(mutating: first)
                    for index in 0..<buffer.count where child[index].holdsInPlace(input) {
                        held += 1
                        if held >= count { return true }
                    }
                }
                return held >= count
            }
        case .ref(_, let spec): return spec.holds(input)
        case .always(let constant): return constant
        case .flag(let key, let equals, let ifMissing):
            guard let value = input.context.flag(forKey: key) else { return ifMissing }
            return value == equals
        case .counter(let key, let comparison): return comparison.holds(input.context.counter(forKey: key) ?? 0)
        case .maxCount(let counter, let limit): return (input.context.counter(forKey: counter) ?? 0) < limit
        case .elapsedSince(_, let event, let duration):
            guard let at = input.context.event(forKey: event) else { return true }
            return input.now - at >= duration
        case .sinceLaunch(let duration):
            guard let launched = input.context.launchedAt else { return duration <= 0 }
            return input.now - launched >= duration
        case .eventExists(let event): return input.context.event(forKey: event) != nil
        case .eventDate(let event, let before, let after):
            guard let at = input.context.event(forKey: event) else { return false }
            if let before, !(at < before) { return false }
            if let after, !(at > after) { return false }
            return true
        case .dateRange(let from, let to):
            if let from, input.now < from { return false }
            if let to, input.now > to { return false }
            return true
        case .hourIn(let from, let to, let zone):
            let hour = TimeZones.local(input.now, in: zone ?? input.context.timeZone).hour
            return from <= to ? (hour >= from && hour <= to) : (hour >= from || hour <= to)
        case .weekday(let days, let zone):
            return days.contains(TimeZones.local(input.now, in: zone ?? input.context.timeZone).isoWeekday)
        case .segment(let name): return input.context.isMember(of: name)
        case .segmentsAny(let names): return names.contains { input.context.isMember(of: $0) }
        case .segmentsAll(let names): return names.allSatisfy { input.context.isMember(of: $0) }
        case .subscription(let status):
            guard case .string(let actual)? = input.context.attribute(forKey: "subscription_status") else { return false }
            return actual == status
        case .attribute(let key, let test): return test.holds(input.context.attribute(forKey: key))
        case .donations(let event, let comparison, let within):
            // The summaries are read where they lie (`withValue`): copied out, each retained its buffers.
            let now = input.now
            let count =
                input.context.withDonations(of: event) { summary in
                    within.map { summary.count(within: $0, now: now) } ?? summary.count
                } ?? 0
            return comparison.holds(count)
        case .donationRecency(let event, let first, let window, let inside):
            let at = input.context.withDonations(of: event) { first ? $0.first?.at : $0.last?.at } ?? nil
            guard let at else { return !inside }
            // RuleKit's donatedWithin is `timeSinceLast <= s` and notDonatedFor `timeSinceLast >= s`: both hold at
            // exactly the window, so they are not each other's negation (docs/rules.md, "lastDonation").
            let age = input.now - at
            return inside ? age <= window : age >= window
        case .donationVersion(let event, let first, let test):
            guard let right = test.operand.resolve(input) else { return false }
            let mark = input.context.withDonations(of: event) { first ? $0.first : $0.last } ?? nil
            // The request's own version text is the request's version, parsed once already: a user donating again
            // from the version it last donated from (the usual case) costs no parse per evaluation.
            if case .requestAppVersion = test.operand, let text = mark?.appVersion, let current = input.request.appVersion,
                sameUTF8(text, current)
            {
                return test.holds(right, right)
            }
            guard let text = mark?.appVersion, let version = Version(text)
            else {
                // RuleKit's idiom `donations.last?.version != .current` is true for a user who never donated:
                // "prompt once per version" must prompt a new user. No other operator holds without a version.
                return test.op == .ne
            }
            return test.holds(version, right)
        case .appVersion(let test):
            guard let version = input.request.version, let right = test.operand.resolve(input)
            else { return false }
            return test.holds(version, right)
        case .rollout(let basisPoints, let prefix, let by):
            guard let value = Spec.bucketingValue(by, input) else { return false }
            return Bucketing.bucket(prefix + value, totalWeight: 10_000) < UInt64(basisPoints)
        case .prerequisite(let flag, let test):
            return test.holds(flag.evaluate(input))
        case .backoffCooldown(let cooldown): return cooldown.holds(input)
        case .dayNightCooldown(let cooldown): return cooldown.holds(input)
        case .launchAge(let test): return test.holds(input)
        case .number(let key, let test): return test.holds(input.context.attribute(forKey: key))
        case .comparison(let comparison): return comparison.holds(input)
        case .history(let test): return test.holds(input)
        case .display(let flag, let test): return test.holds(input.context.display(forKey: flag), now: input.now)
        }
    }

    /// The user id, or the named attribute as text (strings as they are, numbers in their lexical form).
    static func bucketingValue(_ attribute: String?, _ input: EvaluationInput) -> String? {
        guard let attribute else { return input.request.userID }
        switch input.context.attribute(forKey: attribute) {
        case .string(let text)?: return text
        case .number(let number)?: return number.text
        default: return nil
        }
    }
}

extension VersionTest.Operand {
    func resolve(_ input: EvaluationInput) -> Version? {
        switch self {
        case .literal(let version): return version
        case .requestAppVersion: return input.request.version
        }
    }
}
