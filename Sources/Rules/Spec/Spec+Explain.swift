extension Flag {
    /// The evaluation tree of every consulted case (or the boolean spec), as JSON.
    public func explain(_ input: EvaluationInput) -> JSONValue {
        let tree = explainBody(input)
        guard let display, case .object(var members) = tree else { return tree }
        members["display"] = explainDisplay(display, input)
        return .object(members)
    }

    private func explainBody(_ input: EvaluationInput) -> JSONValue {
        switch body {
        case .boolean(let spec):
            return ["when": spec.explain(input).json]
        case .flagd(let flagd):
            let result = flagd.targeting.map { FlagdTargeting.logic.apply($0, flagd.data(key: key, input)) }
            return ["targeting": flagd.targeting ?? .null, "result": result ?? .null]
        case .cases(let cases, let fallback):
            var explained: [JSONValue] = []
            for (index, candidate) in cases.enumerated() {
                let node = candidate.when.explain(input)
                explained.append(["index": .int(index), "when": node.json])
                if node.result { break }
            }
            return ["cases": .array(explained), "hasFallback": .bool(fallback != nil)]
        case .pick(let pick):
            return explainPick(pick, input)
        }
    }
}

extension Spec {
    public func explain(_ input: EvaluationInput) -> ExplainNode {
        let context = input.context
        let now = input.now
        func leaf(_ name: String, _ why: String) -> ExplainNode {
            ExplainNode(node: name, result: holds(input), why: why, children: [])
        }
        func seconds(_ milliseconds: Milliseconds) -> String { "\(milliseconds / 1000)s" }
        switch self {
        case .all(let children), .any(let children), .none(let children):
            let name = { () -> String in
                if case .all = self { return "all" }
                if case .any = self { return "any" }
                return "none"
            }()
            return ExplainNode(node: name, result: holds(input), why: nil, children: children.map { $0.explain(input) })
        case .not(let child):
            return ExplainNode(node: "not", result: holds(input), why: nil, children: [child.explain(input)])
        case .atLeast(let count, let children):
            return ExplainNode(node: "atLeast", result: holds(input), why: "needs \(count)", children: children.map { $0.explain(input) })
        case .ref(let name, let spec):
            return ExplainNode(node: "ref", result: holds(input), why: "spec '\(name)'", children: [spec.explain(input)])
        case .always(let constant):
            return leaf("always", "constant \(constant)")
        case .flag(let key, let equals, let ifMissing):
            return leaf("flag", context.flags[key].map { "\(key) = \($0), expected \(equals)" } ?? "\(key) missing, ifMissing \(ifMissing)")
        case .counter(let key, let comparison):
            return leaf("counter", "\(key) = \(context.counters[key] ?? 0), \(comparison.text)")
        case .maxCount(let counter, let limit):
            return leaf("maxCount", "\(counter) = \(context.counters[counter] ?? 0), limit \(limit)")
        case .elapsedSince(let name, let event, let duration):
            guard let at = context.events[event] else { return leaf(name, "\(event) never happened") }
            let remaining = Saturating.subtract(duration, now - at)
            return leaf(
                name,
                remaining > 0
                    ? "\(event) at \(at); remaining: \(seconds(Saturating.add(remaining, 999)))" : "\(event) at \(at); elapsed \(seconds(now - at))")
        case .sinceLaunch(let duration):
            guard let launched = context.launchedAt else { return leaf("sinceLaunch", "launchedAt unknown: treated as now") }
            let remaining = Saturating.subtract(duration, now - launched)
            return leaf(
                "sinceLaunch",
                remaining > 0 ? "launched at \(launched); remaining: \(seconds(Saturating.add(remaining, 999)))" : "launched at \(launched)")
        case .eventExists(let event):
            return leaf("eventExists", context.events[event].map { "\(event) at \($0)" } ?? "\(event) never happened")
        case .eventDate(let event, let before, let after):
            let bounds = [before.map { "before \($0)" }, after.map { "after \($0)" }].compactMap { $0 }.joined(separator: ", ")
            return leaf("eventDate", context.events[event].map { "\(event) at \($0), \(bounds)" } ?? "\(event) never happened")
        case .dateRange(let from, let to):
            return leaf("dateRange", "now \(now), from \(from.map(\.description) ?? "-") to \(to.map(\.description) ?? "-")")
        case .hourIn(let from, let to, let zone):
            let name = zone ?? context.timeZone ?? "UTC"
            return leaf("hourIn", "local hour \(TimeZones.local(now, in: zone ?? context.timeZone).hour) in \(name), range \(from)-\(to)")
        case .weekday(let days, let zone):
            return leaf("weekday", "local weekday \(TimeZones.local(now, in: zone ?? context.timeZone).isoWeekday), allowed \(days.sorted())")
        case .segment(let name):
            return leaf("segment", "member of '\(name)': \(context.segments.contains(name))")
        case .segmentsAny(let names), .segmentsAll(let names):
            return leaf("segments", "segments \(context.segments.sorted()), tested \(names)")
        case .subscription(let status):
            return leaf(
                "subscription",
                "subscription_status = \(context.attributes["subscription_status"].map(JSONWriter.string) ?? "missing"), expected \(status)")
        case .attribute(let key, _):
            return leaf("attr", "\(key) = \(context.attributes[key].map(JSONWriter.string) ?? "missing")")
        case .donations(let event, let comparison, let within):
            let summary = context.donations[event]
            let count = within.map { summary?.count(within: $0, now: now) ?? 0 } ?? summary?.count ?? 0
            return leaf("donations", "\(event) count \(count)\(within.map { " within \(seconds($0))" } ?? ""), \(comparison.text)")
        case .donationRecency(let event, let first, let window, let inside):
            let name = first ? "firstDonation" : "lastDonation"
            let summary = context.donations[event]
            guard let at = first ? summary?.first?.at : summary?.last?.at else { return leaf(name, "\(event) never donated") }
            let age = now - at
            let remaining = inside ? Saturating.subtract(Saturating.add(window, 1), age) : Saturating.subtract(window, age)
            let state = remaining > 0 ? "; changes in \(seconds(Saturating.add(remaining, 999)))" : ""
            return leaf(
                name, "\(event) \(first ? "first" : "last") at \(at), \(inside ? "within" : "notWithin") \(seconds(window))\(state)")
        case .donationVersion(let event, let first, _):
            let summary = context.donations[event]
            let mark = first ? summary?.first : summary?.last
            return leaf(
                first ? "firstDonationVersion" : "lastDonationVersion",
                "\(event) version \(mark?.appVersion ?? "none"), request version \(input.request.appVersion ?? "none")")
        case .appVersion:
            return leaf("appVersion", "request version \(input.request.appVersion ?? "none")")
        case .rollout(let basisPoints, let prefix, let by):
            guard let value = Spec.bucketingValue(by, input) else { return leaf("rollout", "bucketing attribute '\(by ?? "")' missing") }
            let bucket = Bucketing.bucket(prefix + value, totalWeight: 10_000)
            return leaf("rollout", "bucket \(bucket) of 10000, below \(basisPoints) holds")
        case .prerequisite(let flag, let test):
            return Spec.explainPrerequisite(flag, test, input)
        case .backoffCooldown(let cooldown): return leaf("cooldown", cooldown.why(input))
        case .dayNightCooldown(let cooldown): return leaf("cooldown", cooldown.why(input))
        case .launchAge(let test): return leaf("sinceLaunch", test.why(input))
        case .number(let key, let test):
            return leaf("attr", "\(key) = \(context.attributes[key].map(JSONWriter.string) ?? "missing"), \(test.text)")
        case .comparison(let comparison): return leaf(comparison.left.isCounter ? "counter" : "attr", comparison.why(input))
        case .history(let test): return leaf("history", test.why(input))
        case .display(let flag, let test):
            return leaf("display", test.why(flag, context.display[flag], now: now))
        }
    }
}
