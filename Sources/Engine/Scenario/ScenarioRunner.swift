import Rules
import Store

/// Runs a scenario under one configuration through the daemon's own engine — the same write path, reducer,
/// trigger scheduling, clock-driven change detection and stream events — with a virtual clock and a store in
/// memory: no thread, socket or file. Everything happens on the caller's thread, in order.
public struct ScenarioRunner {
    /// A step's clock move runs at most this many due instants; a rule set that keeps rescheduling the same instant,
    /// or a span too long for its clock-driven flags, is reported instead of looping forever. A due instant costs some 50 µs (every listed user's flags
    /// re-evaluated and compared), so the bound is under a minute a step.
    public static let maxInstantsPerStep = 1_000_000
    /// Flag evaluations the due instants of a whole run may take: each instant re-evaluates every flag for every
    /// user the scenario mentions. The per-step bound alone let 10 000 steps, or fifty users and a dozen clock-driven
    /// flags, multiply it past minutes and gigabytes (found in review). Some seconds of CPU.
    public static let maxEvaluationsPerRun = 2_000_000

    let scenario: Scenario
    let configuration: Scenario.Configuration
    let maxInstants: Int
    let clock: VirtualClock
    let streams: ScenarioStreams
    let engine: Engine
    /// What is left of the run's `maxEvaluationsPerRun`.
    private let budget: InstantBudget
    /// Shared by every configuration of the file; checked at each due instant, before each action and after a step.
    let deadline: ScenarioDeadline

    /// `maxInstantsPerStep` lower than the default for a caller with a time budget of its own (the fuzz target:
    /// fifty years of hourly changes took two minutes a run there). `deadline`: the file's, when it has several
    /// configurations (a fresh one, starting now, otherwise).
    public static func run(
        _ scenario: Scenario, configuration: Scenario.Configuration, maxInstantsPerStep: Int = maxInstantsPerStep,
        maxEvaluations: Int = maxEvaluationsPerRun, deadline: ScenarioDeadline = ScenarioDeadline()
    ) -> ScenarioRun {
        ScenarioRunner(scenario, configuration, maxInstants: maxInstantsPerStep, maxEvaluations: maxEvaluations, deadline: deadline).run()
    }

    init(
        _ scenario: Scenario, _ configuration: Scenario.Configuration, maxInstants: Int = maxInstantsPerStep,
        maxEvaluations: Int = maxEvaluationsPerRun, deadline: ScenarioDeadline = ScenarioDeadline()
    ) {
        self.scenario = scenario
        self.configuration = configuration
        self.maxInstants = max(1, maxInstants)
        budget = InstantBudget(maxEvaluations)
        self.deadline = deadline
        clock = VirtualClock(scenario.start)
        streams = ScenarioStreams()
        var initial: [ByteKey: UserContext] = [:]
        for user in scenario.users {
            // Checked by the parser, merged contexts included.
            if let context = try? ContextJSON.decode(.object(Self.context(of: user, scenario, configuration))) {
                initial[ByteKey(user.id)] = context
            }
        }
        engine = Engine(
            rules: RulesHost(scenario.rules, path: nil), store: MemoryContextStore(initial: initial), subscribers: streams, clock: clock,
            logger: Logger(level: .error, sink: MemoryLogSink()))
    }

    /// A listed user's context: the file's, then the configuration's `context` over it (objects merged member by
    /// member, segments joined), then the zone: the user's own (the file's, or the configuration's `context.tz`
    /// over it), else the configuration's `tz`, else the scenario's.
    static func context(of user: Scenario.User, _ scenario: Scenario, _ configuration: Scenario.Configuration) -> JSONObject {
        var context = user.context
        if let extra = configuration.context {
            for (key, value) in extra {
                switch (context[key], value) {
                case (.object(var base)?, .object(let over)):
                    for (member, memberValue) in over { base[member] = memberValue }
                    context[key] = .object(base)
                case (.array(let base)?, .array(let over)) where key == "segments":
                    // A set of what is there: a scan of the user's segments per added one made 40 000 of each take
                    // 19 s (found in review).
                    let present = Set(base)
                    context[key] = .array(base + over.filter { !present.contains($0) })
                default:
                    context[key] = value
                }
            }
        }
        // Read after the merge: a zone in the configuration's `context` is the user's own from then on, and neither
        // the configuration's nor the scenario's `tz` replaces it.
        if context["tz"] == nil, let zone = configuration.tz ?? scenario.tz { context["tz"] = .string(zone) }
        return context
    }

    private func run() -> ScenarioRun {
        // Every user the scenario mentions has a stream from the start, having seen its answers then.
        for user in scenario.mentionedUsers {
            var values: [ByteKey: JSONValue] = [:]
            for (key, evaluation) in evaluations(for: user) { values[ByteKey(key)] = evaluation.value ?? .null }
            streams.open(user: user, appVersion: configuration.appVersion, values: values)
            engine.subscribed(user: user)
        }
        var results: [ScenarioRun.StepResult] = []
        for step in scenario.steps {
            let result = run(step)
            results.append(result)
            // The step that passed the deadline says so; the steps after it are not run.
            if result.assertions.contains(where: { $0.label == Self.deadlineLabel }) { break }
        }
        return ScenarioRun(scenario: scenario.name, file: scenario.file, configuration: configuration.name, steps: results)
    }

    private func run(_ step: Scenario.Step) -> ScenarioRun.StepResult {
        let started = ContinuousClock.now
        var assertions: [ScenarioRun.AssertionResult] = []
        // Past the file's deadline: nothing more of the step runs, and its assertions would judge a state it never
        // reached, so they are not checked and its snapshot is not taken.
        var cutShort = false
        if let move = step.move {
            let target: Instant
            switch move {
            case .advance(let duration): target = clock.now() + duration
            case .at(let instant): target = instant
            }
            if let failure = moveClock(to: target, in: step) {
                assertions.append(failure)
                cutShort = failure.label == Self.deadlineLabel
            }
        }
        for (index, action) in step.actions.enumerated() {
            guard !cutShort else { break }
            guard !deadline.hasPassed else {
                assertions.append(deadlineFailure(step, "before action \(index + 1) (\(action.path)); it and the actions after it were not run"))
                cutShort = true
                break
            }
            if let failure = perform(action) {
                assertions.append(ScenarioRun.AssertionResult(label: "action \(index + 1) (\(action.path))", passed: false, message: failure))
            }
        }
        var heard: [ByteKey: (events: [JSONObject], fired: [ByteKey: Int])] = [:]
        for user in scenario.mentionedUsers {
            let drained = streams.drain(user: user)
            heard[ByteKey(user)] = (drained.events, drained.fired)
            if drained.overflow > 0 {
                assertions.append(
                    ScenarioRun.AssertionResult(
                        label: "stream \(user)", passed: false,
                        message:
                            "heard \(drained.overflow) events past the \(ScenarioStreams.maxHeard) a step keeps: the step's events are incomplete"))
            }
        }
        for expectation in step.expectations where !cutShort {
            assertions.append(check(expectation, heard: heard[ByteKey(expectation.user)] ?? ([], [:])))
        }
        var snapshot: JSONValue?
        if step.snapshot, !cutShort {
            var users = JSONObject()
            for user in scenario.mentionedUsers {
                var flags = JSONObject()
                for (key, evaluation) in evaluations(for: user) { flags[key] = evaluation.json }
                users[user] = .object(flags)
            }
            snapshot = .object(users)
        }
        if !cutShort, deadline.hasPassed {
            assertions.append(deadlineFailure(step, "by the end of it"))
        }
        return ScenarioRun.StepResult(
            name: step.name, at: clock.now(), assertions: assertions, snapshot: snapshot, elapsed: ContinuousClock.now - started)
    }

    /// Moves the clock to `target`, stopping at every instant something is due on the way (a delayed fire, a
    /// clock-driven change), so each happens at its own instant and sees the state the earlier ones left.
    /// Past a bound the clock still ends at `target`: a step that stopped short left every later step running at
    /// instants decades before the ones the file names.
    private func moveClock(to target: Instant, in step: Scenario.Step) -> ScenarioRun.AssertionResult? {
        let from = clock.now()
        var instants = 0
        while let next = engine.nextDue, next <= target {
            guard !deadline.hasPassed else {
                let reached = clock.now()
                clock.move(to: target)
                return deadlineFailure(
                    step,
                    "in its clock move to \(ISO8601.format(target)), at \(ISO8601.format(reached)) (the due instants after it, and its actions, were not run)"
                )
            }
            instants += 1
            guard instants <= maxInstants else {
                clock.move(to: target)
                // What is overdue runs once, at the target, so it is heard in this step and not in the next one's.
                engine.runDue(now: target)
                return ScenarioRun.AssertionResult(
                    label: "clock", passed: false,
                    message:
                        "the step's move from \(ISO8601.format(from)) to \(ISO8601.format(target)) has more than \(maxInstants) due instants "
                        + "(a span too long for its clock-driven rules, or rules that keep rescheduling); the clock moved to "
                        + "\(ISO8601.format(target)) and what was still due ran there once")
            }
            guard budget.spend(max(1, scenario.mentionedUsers.count * engine.rules.served.rules.flags.count)) else {
                clock.move(to: target)
                return ScenarioRun.AssertionResult(
                    label: "clock", passed: false,
                    message:
                        "the run's due instants passed \(budget.total) flag evaluations (every flag for every user at each) before \(ISO8601.format(target)); later instants were not run"
                )
            }
            clock.move(to: next)
            engine.runDue(now: max(next, clock.now()))
        }
        clock.move(to: target)
        return nil
    }

    static let deadlineLabel = "deadline"

    /// The failure a step reports when the file's wall-clock deadline passed during it; `when` says where.
    private func deadlineFailure(_ step: Scenario.Step, _ when: String) -> ScenarioRun.AssertionResult {
        ScenarioRun.AssertionResult(
            label: Self.deadlineLabel, passed: false,
            message:
                "the file's runs passed their \(deadline.text) wall-clock deadline (every configuration together) in step '\(step.name)', "
                + "\(when); nothing after it in this configuration ran")
    }

    // MARK: - Assertions

    /// Every flag's answer for `user` now, with the configuration's app version, in the rule set's key order.
    private func evaluations(for user: String) -> [(key: String, evaluation: Evaluation)] {
        let ruleSet = engine.rules.current
        let input = input(for: user)
        return ruleSet.flagKeys.map { key in (key, ruleSet.flags[key]!.evaluate(input)) }
    }

    private func input(for user: String) -> EvaluationInput {
        engine.input(engine.store.context(of: user) ?? UserContext(), user: user, now: clock.now(), appVersion: configuration.appVersion)
    }

    private func check(
        _ expectation: Scenario.Expectation, heard: (events: [JSONObject], fired: [ByteKey: Int])
    ) -> ScenarioRun.AssertionResult {
        let label = expectation.label
        switch expectation.check {
        case .flag(let key, let fields):
            guard let flag = engine.rules.current.flags[key] else {
                return ScenarioRun.AssertionResult(label: label, passed: false, message: "flag '\(key)' is not defined in the rules")
            }
            let input = input(for: expectation.user)
            let evaluation = flag.evaluate(input)
            var expected = JSONObject()
            var actual = JSONObject()
            var passed = true
            for field in fields {
                switch field {
                case .equals(let value):
                    expected["value"] = value
                    actual["value"] = evaluation.value ?? .null
                    passed = passed && JSONMatch.equal(value, evaluation.value ?? .null)
                case .variant(let variant):
                    expected["variant"] = variant
                    actual["variant"] = evaluation.variant.map(JSONValue.string) ?? .null
                    passed = passed && variant == (evaluation.variant.map(JSONValue.string) ?? .null)
                case .reason(let reason):
                    expected["reason"] = .string(reason)
                    actual["reason"] = .string(evaluation.reason.rawValue)
                    passed = passed && reason == evaluation.reason.rawValue
                case .matched(let matched):
                    expected["matched"] = .bool(matched)
                    actual["matched"] = .bool(evaluation.matched)
                    passed = passed && matched == evaluation.matched
                case .validUntil(let instant):
                    let next = flag.nextChange(input)
                    expected["validUntil"] = instant.map { .string(ISO8601.format($0)) } ?? .null
                    actual["validUntil"] = next.map { .string(ISO8601.format($0)) } ?? .null
                    passed = passed && instant == next
                }
            }
            return ScenarioRun.AssertionResult(label: label, passed: passed, expected: .object(expected), actual: .object(actual))
        case .fired(let trigger, let times, let expectedFire):
            // As a flag assertion: a misspelt trigger never fires, so "not fired" would pass for it whatever the rules do.
            guard engine.rules.current.triggers[trigger] != nil else {
                return ScenarioRun.AssertionResult(label: label, passed: false, message: "trigger '\(trigger)' is not defined in the rules")
            }
            let count = heard.fired[ByteKey(trigger)] ?? 0
            let passed: Bool
            let expected: JSONValue
            if !expectedFire || times == 0 {
                passed = count == 0
                expected = ["fired": 0]
            } else if let times {
                passed = count == times
                expected = ["fired": .int(times)]
            } else {
                passed = count > 0
                expected = ["fired": "at least 1"]
            }
            return ScenarioRun.AssertionResult(label: label, passed: passed, expected: expected, actual: ["fired": .int(count)])
        case .stored(let kind, let key, let equals):
            let actual = stored(kind, key: key, of: expectation.user)
            let passed: Bool
            switch (kind, equals) {
            case (.donations, .object):
                passed = JSONMatch.partial(equals, actual)
            case (.donations, .number):
                passed = JSONMatch.equal(equals, actual.objectValue?["count"] ?? 0)
            case (.display, .object):
                passed = JSONMatch.partial(equals, actual)
            case (.display, .number):
                passed = JSONMatch.equal(equals, actual.objectValue?["shownCount"] ?? 0)
            case (.event, .string(let text)):
                passed = ISO8601.parse(text).map { ISO8601.format($0) }.map(JSONValue.string) == actual
            default:
                passed = JSONMatch.equal(equals, actual)
            }
            return ScenarioRun.AssertionResult(label: label, passed: passed, expected: equals, actual: actual)
        case .events(let expected):
            let passed =
                expected.count == heard.events.count && zip(expected, heard.events).allSatisfy { JSONMatch.partial(.object($0), .object($1)) }
            return ScenarioRun.AssertionResult(
                label: label, passed: passed, expected: .array(expected.map(JSONValue.object)), actual: .array(heard.events.map(JSONValue.object)))
        }
    }

    private func stored(_ kind: Scenario.StoredValue, key: String, of user: String) -> JSONValue {
        // As the context reads at the scenario's instant: an expired value is missing.
        let context = (engine.store.context(of: user) ?? UserContext()).removingExpired(at: clock.now())
        switch kind {
        case .counter: return .int(context.counters[key] ?? 0)
        case .event: return context.events[key].map { .string(ISO8601.format($0)) } ?? .null
        case .attribute: return context.attributes[key] ?? .null
        case .segment: return .bool(context.segments.contains(key))
        case .donations:
            return context.donations[key].map { ContextJSON.summary($0, includeRecent: false) } ?? ["count": 0, "first": .null, "last": .null]
        case .display: return (context.display[key] ?? DisplayState()).json
        }
    }
}
