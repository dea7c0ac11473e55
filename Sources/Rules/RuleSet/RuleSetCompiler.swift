/// Validates a whole rule document and builds a `RuleSet`, or reports every problem together
/// (docs/rules.md, "Validation").
public enum RuleSetCompiler {
    /// Which flag shapes a document may use: `auto` tells them apart per flag (a flagd flag has `state`).
    public enum Format: String, Sendable, CaseIterable {
        case auto, specd, flagd
    }

    static let sections: Set<String> = ["specs", "flags", "triggers", "$schema", "description", "$evaluators", "metadata", "groups"]
    /// The sections that must be objects (`description` and `$schema` are free text).
    static let objectSections: Set<String> = ["specs", "flags", "triggers", "$evaluators", "metadata", "groups"]

    public static func compile(_ document: JSONValue, format: Format = .auto) -> Result<RuleSet, RuleSetError> {
        guard case .object(let root) = document else {
            return .failure(RuleSetError([Diagnostic(.error, path: "", code: "wrong_type", message: "a rule set is a JSON object")]))
        }
        var diagnostics: [Diagnostic] = []
        for key in root.keys where !sections.contains(key) {
            diagnostics.append(Diagnostic(.error, path: "/" + key, code: "unknown_field", message: "unknown section '\(key)'"))
        }
        let named = section(root, "specs", &diagnostics)
        let flagsJSON = section(root, "flags", &diagnostics)
        let triggersJSON = section(root, "triggers", &diagnostics)
        var specs = SpecCompiler(named: named)
        let flagd = FlagdCompiler(evaluators: section(root, "$evaluators", &diagnostics), setMetadata: section(root, "metadata", &diagnostics))
        specs.flagResolution = FlagResolution(definitions: flagsJSON, format: format, flagd: flagd)
        specs.display.displayFlags = Set(flagsJSON.compactMap { key, definition in definition["display"] == nil ? nil : key })
        specs.display.groups = DisplayCatalog.compileGroups(section(root, "groups", &diagnostics), specs: &specs)
        // Every named spec is checked once on its own, used or not.
        specs.checkingNamedSpecs = true
        for name in named.keys {
            specs.flagKey = name
            specs.expansion = 0
            _ = specs.compile(.object(["ref": .string(name)]), at: JSONPointer("/specs").appending(name))
        }
        specs.checkingNamedSpecs = false
        var flags: [Flag] = []
        // In declaration order; a flag a prerequisite needed earlier is compiled already and handed back.
        for key in flagsJSON.keys {
            if let flag = specs.resolveFlag(key) { flags.append(flag) }
        }
        let catalog = specs.display
        flags = catalog.resolve(flags, specs: &specs)
        var triggers: [Trigger] = []
        for (key, definition) in triggersJSON {
            specs.flagKey = key
            specs.expansion = 0
            if let trigger = compileTrigger(key, definition, specs: &specs) { triggers.append(trigger) }
        }
        diagnostics += specs.diagnostics
        for trigger in triggers {
            for (index, event) in trigger.on.enumerated() where !specs.referencedEvents.contains(ByteKey(event)) {
                diagnostics.append(
                    Diagnostic(
                        .warning, path: "/triggers/\(trigger.key)/on/\(index)", code: "unreferenced_trigger_event",
                        message: "no spec refers to event '\(event)'"))
            }
        }
        if diagnostics.contains(where: { $0.severity == .error }) { return .failure(RuleSetError(diagnostics)) }
        return .success(RuleSet(flags: flags, triggers: triggers, source: document, warnings: diagnostics))
    }

    private static func section(_ root: JSONObject, _ name: String, _ diagnostics: inout [Diagnostic]) -> JSONObject {
        guard let value = root[name] else { return [:] }
        guard case .object(let object) = value else {
            diagnostics.append(Diagnostic(.error, path: "/" + name, code: "wrong_type", message: "'\(name)' must be an object"))
            return [:]
        }
        return object
    }

    private static func compileTrigger(_ key: String, _ definition: JSONValue, specs: inout SpecCompiler) -> Trigger? {
        let path = JSONPointer("/triggers").appending(key)
        guard
            let fields = specs.fields(
                definition, at: path, required: [], optional: ["on", "when", "throttle", "delay", "delayMode", "edge", "description"])
        else { return nil }
        var ok = true
        var on: [String] = []
        if let value = fields["on"] {
            if case .array(let items) = value, !items.isEmpty, items.allSatisfy({ ($0.stringValue ?? "").isEmpty == false }) {
                on = items.compactMap(\.stringValue)
            } else {
                specs.error(path.appending("on"), "wrong_type", "'on' is a non-empty array of event names")
                ok = false
            }
        }
        var when = Spec.always(true)
        if let value = fields["when"] {
            if let compiled = specs.compile(value, at: path.appending("when")) { when = compiled } else { ok = false }
        }
        var throttle: CalendarPeriod?
        if let value = fields["throttle"] {
            if case .string(let text) = value, let period = CalendarPeriod(text: text) {
                throttle = period
            } else {
                specs.error(
                    path.appending("throttle"), "invalid_period",
                    "a period is hour, day, week, month, quarter or year, optionally with a count (\"2 weeks\")")
                ok = false
            }
        }
        var delay: Milliseconds?
        if let value = fields["delay"] {
            if let parsed = specs.duration(value, at: path.appending("delay")) { delay = parsed } else { ok = false }
        }
        var delayMode = Trigger.DelayMode.each
        if let value = fields["delayMode"] {
            if let text = value.stringValue, let mode = Trigger.DelayMode(rawValue: text) {
                delayMode = mode
            } else {
                specs.error(path.appending("delayMode"), "invalid_value", "'delayMode' is \"each\", \"restart\" or \"first\"")
                ok = false
            }
        }
        let edge = specs.boolean(fields, "edge", at: path) ?? false
        guard ok else { return nil }
        return Trigger(
            key: key, on: on, when: when, throttle: throttle, delay: delay, delayMode: delayMode, edge: edge, source: definition)
    }
}
