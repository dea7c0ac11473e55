/// What the compilers know of display accounting before compiling flags: the declared groups and which flags declare
/// `display` (so a `display` spec node can refuse a flag that has none), then, once every flag is compiled, each
/// display flag's groups resolved (docs/rules.md, "Display accounting").
struct DisplayCatalog {
    var groups: [String: DisplayGroup] = [:]
    /// Flags whose definition carries `display`, valid or not (an invalid one fails the set on its own).
    var displayFlags: Set<String> = []

    static let groupFields = ["frequency", "order"]
    /// Members a display group may have. Two thousand flags in one ordered group (a 127 KB file) took minutes to
    /// validate and would have held four million member entries.
    static let maxMembers = 256

    /// Reads `groups`: `{"name": {"frequency": "daily"|…|duration, "order": "ordered"|"firstAvailable"}}`.
    static func compileGroups(_ section: JSONObject, specs: inout SpecCompiler) -> [String: DisplayGroup] {
        var groups: [String: DisplayGroup] = [:]
        for (name, definition) in section {
            let path = JSONPointer("/groups").appending(name)
            if name.isEmpty {
                specs.error(path, "wrong_type", "a group needs a non-empty name")
                continue
            }
            guard let fields = specs.fields(definition, at: path, required: [], optional: Self.groupFields) else { continue }
            var window: Milliseconds = 0
            if let value = fields["frequency"] {
                if let text = value.stringValue, let named = DisplayGroup.frequencies[text] {
                    window = named
                } else if let parsed = DurationText.parse(value) {
                    window = parsed
                } else {
                    specs.error(
                        path.appending("frequency"), "invalid_frequency",
                        "a frequency is immediate, hourly, daily, weekly, monthly or a duration such as \"36h\"")
                    continue
                }
            }
            var order = DisplayGroup.Order.firstAvailable
            if let value = fields["order"] {
                guard let text = value.stringValue, let parsed = DisplayGroup.Order(rawValue: text) else {
                    specs.error(path.appending("order"), "invalid_value", "'order' is \"ordered\" or \"firstAvailable\"")
                    continue
                }
                order = parsed
            }
            groups[name] = DisplayGroup(name: name, window: window, order: order)
        }
        return groups
    }

    /// Every flag with its groups' members filled in; warns about groups no flag names.
    func resolve(_ flags: [Flag], specs: inout SpecCompiler) -> [Flag] {
        let displayed = flags.filter { $0.display != nil }
        var members: [String: [Flag]] = [:]
        for flag in displayed {
            if let group = flag.display?.group, group != DisplayGroup.global { members[group, default: []].append(flag) }
        }
        for name in groups.keys.sorted() where name != DisplayGroup.global && members[name] == nil {
            specs.warning(JSONPointer("/groups").appending(name), "unused_group", "no flag's display names group '\(name)'")
        }
        // Each member's rule lists the group's other members: a group of n costs n² of them, built and kept.
        var oversized = members.filter { $0.value.count > Self.maxMembers }.map(\.key)
        if groups[DisplayGroup.global] != nil, displayed.count > Self.maxMembers { oversized.append(DisplayGroup.global) }
        for name in oversized.sorted() {
            specs.error(
                JSONPointer("/groups").appending(name), "group_too_large",
                "group '\(name)' has more than \(Self.maxMembers) members (the global group '*' has every display flag)")
        }
        guard oversized.isEmpty else { return flags }
        return flags.map { flag in
            guard let display = flag.display else { return flag }
            var constraints: [DisplayRule.Constraint] = []
            if let name = display.group, name != DisplayGroup.global, let group = groups[name] {
                constraints.append(Self.constraint(flag, group, members[name] ?? []))
            }
            if let global = groups[DisplayGroup.global] { constraints.append(Self.constraint(flag, global, displayed)) }
            return flag.with(display.with(constraints))
        }
    }

    private static func constraint(_ flag: Flag, _ group: DisplayGroup, _ members: [Flag]) -> DisplayRule.Constraint {
        let position = members.firstIndex { $0.key.bytesEqual(flag.key) } ?? 0
        let others = members.filter { !$0.key.bytesEqual(flag.key) }.map { DisplayRule.Member(key: $0.key, maxCount: $0.display?.maxCount) }
        return DisplayRule.Constraint(group: group, others: others, earlierCount: position)
    }
}
