/// Turns spec JSON into `Spec`, collecting every problem as a diagnostic instead of stopping at the first
/// (docs/rules.md, "Validation"), so one run shows an author every mistake. References are inlined per flag so rollouts
/// can salt with their flag's key.
struct SpecCompiler {
    /// Named specs as written.
    let named: JSONObject
    private(set) var diagnostics: [Diagnostic] = []
    /// The same diagnostics, to refuse a repeat in one lookup: a scan of the list per diagnostic made 40 000 of them
    /// (a valid file's `unreachable_case` warnings, or a 1 MB body on `POST /v1/rules/validate`) take minutes.
    private var recorded: Set<Diagnostic> = []
    /// Event names any spec mentions, by their bytes, for the unreferenced-trigger-event warning.
    var referencedEvents: Set<ByteKey> = []
    /// The flag being compiled; rollouts salt with it.
    var flagKey = ""
    /// Display groups and the flags that declare `display`.
    var display = DisplayCatalog()
    private var resolving: [String] = []
    /// The document's flags, for `prerequisite` nodes.
    var flagResolution = FlagResolution()
    /// Nodes compiled for the flag, named spec or trigger at hand, counting every `ref` and `prerequisite` inlined
    /// as often as it is reached. References are inlined, so specs that each refer twice to the one before grow
    /// twice per level: forty levels hung `specd validate` and would hang a reload. Past `expansionLimit` the flag
    /// is refused (`too_complex`) and compiling it stops.
    var expansion = 0
    static let expansionLimit = 10_000
    /// How deep the node being compiled sits in its flag's tree, inlined refs and prerequisites included, and the
    /// deepest point reached. Every walk over a compiled flag (evaluation, explain, next change) recurses that deep
    /// on a loop thread's stack: past `depthLimit` the flag is refused (`too_deep`).
    var depth = 0
    var deepest = 0
    static let depthLimit = 200
    /// Named specs compiled for the current flag (rollouts salt with its key, so each flag compiles its own), with
    /// their size and depth: a spec referred to again is not compiled again. A chain of specs each referring to
    /// the one before was compiled once per link per flag: quadratic, and thousands of links hung validation.
    private var namedCache: [String: (spec: Spec?, size: Int, depth: Int)] = [:]
    private var namedCacheOwner: String?
    /// While the named specs are checked on their own, one cache serves them all (nothing compiled is kept).
    var checkingNamedSpecs = false
    private var resolvingNames: Set<String> = []

    init(named: JSONObject) {
        self.named = named
    }

    static let operators: Set<String> = [
        "all", "any", "none", "not", "atLeast", "ref", "always", "flag", "counter", "maxCount", "timeSince", "cooldown",
        "sinceLaunch", "eventExists", "eventDate", "dateRange", "hourIn", "weekday", "segment", "segments",
        "subscription", "attr", "donations", "lastDonation", "firstDonation", "lastDonationVersion", "firstDonationVersion",
        "appVersion", "rollout", "prerequisite", "history", "display"
    ]

    mutating func error(_ path: JSONPointer, _ code: String, _ message: String) {
        record(Diagnostic(.error, path: path.text, code: code, message: message))
    }

    mutating func warning(_ path: JSONPointer, _ code: String, _ message: String) {
        record(Diagnostic(.warning, path: path.text, code: code, message: message))
    }

    private mutating func record(_ diagnostic: Diagnostic) {
        if recorded.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
    }

    /// Drops the diagnostics recorded since the first `count` that `isDropped` picks; they may be recorded again.
    mutating func dropDiagnostics(after count: Int, where isDropped: (Diagnostic) -> Bool) {
        var kept = Array(diagnostics[..<count])
        for diagnostic in diagnostics[count...] {
            if isDropped(diagnostic) { recorded.remove(diagnostic) } else { kept.append(diagnostic) }
        }
        diagnostics = kept
    }

    /// `nil` when the node is invalid (its diagnostics are recorded).
    mutating func compile(_ json: JSONValue, at path: JSONPointer) -> Spec? {
        guard grow(by: 1, at: path), deepen(by: 1, at: path) else { return nil }
        depth += 1
        defer { depth -= 1 }
        return compileNode(json, at: path)
    }

    /// Whether a subtree `levels` deep fits below the current node; reported once, at the first node past it.
    mutating func deepen(by levels: Int, at path: JSONPointer) -> Bool {
        let reached = depth + levels
        deepest = max(deepest, reached)
        guard reached > Self.depthLimit else { return true }
        error(path, "too_deep", "'\(flagKey)' nests past \(Self.depthLimit) levels through its refs and prerequisites")
        return false
    }

    private mutating func compileNode(_ json: JSONValue, at path: JSONPointer) -> Spec? {
        guard case .object(let object) = json else {
            error(path, "wrong_type", "a spec must be an object with one operator, not \(json.typeName)")
            return nil
        }
        let operatorKeys = object.keys.filter { Self.operators.contains($0) }
        guard operatorKeys.count == 1, let name = operatorKeys.first else {
            if operatorKeys.isEmpty {
                let unknown = object.keys.first ?? ""
                error(
                    object.isEmpty ? path : path.appending(unknown), "unknown_operator",
                    object.isEmpty ? "a spec needs one operator" : "unknown operator '\(unknown)'")
            } else {
                error(path, "multiple_operators", "a spec has exactly one operator, found \(operatorKeys.joined(separator: ", "))")
            }
            return nil
        }
        let siblings: Set<String> = name == "hourIn" || name == "weekday" || name == "cooldown" ? ["tz"] : []
        for key in object.keys where key != name && !siblings.contains(key) {
            error(path.appending(key), "unknown_field", "unknown field '\(key)' beside '\(name)'")
        }
        let value = object[name]!
        let at = path.appending(name)
        switch name {
        case "all", "any", "none":
            guard let children = compileList(value, at: at) else { return nil }
            return name == "all" ? .all(children) : name == "any" ? .any(children) : .none(children)
        case "not":
            return compile(value, at: at).map { .not($0) }
        case "atLeast":
            return compileAtLeast(value, at: at)
        case "ref":
            return compileRef(value, at: at)
        case "always":
            guard case .bool(let constant) = value else { return wrongType(at, "a boolean") }
            return .always(constant)
        default:
            return compileLeaf(name, value, object: object, path: path)
        }
    }

    mutating func compileList(_ value: JSONValue, at path: JSONPointer) -> [Spec]? {
        guard case .array(let items) = value else { return wrongType(path, "an array of specs") }
        guard !items.isEmpty else {
            error(path, "empty_combinator", "a combinator needs at least one spec")
            return nil
        }
        var children: [Spec] = []
        var failed = false
        for (index, item) in items.enumerated() {
            if let child = compile(item, at: path.appending(index)) { children.append(child) } else { failed = true }
        }
        return failed ? nil : children
    }

    private mutating func compileAtLeast(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard let object = fields(value, at: path, required: ["n", "of"], optional: []) else { return nil }
        let count = integer(object, "n", at: path, minimum: 0)
        let children = compileList(object["of"]!, at: path.appending("of"))
        guard let count, let children else { return nil }
        return .atLeast(count, children)
    }

    private mutating func compileRef(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard case .string(let name) = value else { return wrongType(path, "a spec name") }
        guard let definition = named[name] else {
            error(path, "unknown_ref", "no spec named '\(name)' in specs")
            return nil
        }
        guard !resolvingNames.contains(name) else {
            error(path, "cycle", "spec '\(name)' refers to itself through " + (resolving + [name]).joined(separator: " → "))
            return nil
        }
        let owner = checkingNamedSpecs ? "" : flagKey
        if namedCacheOwner != owner {
            namedCache = [:]
            namedCacheOwner = owner
        }
        if let cached = namedCache[name] {
            // Inlined again: its whole size and depth count again here.
            guard let spec = cached.spec, grow(by: cached.size, at: path), deepen(by: cached.depth, at: path) else { return nil }
            return .ref(name, spec)
        }
        resolving.append(name)
        resolvingNames.insert(name)
        let (expansionBefore, deepestBefore) = (expansion, deepest)
        deepest = depth
        let spec = compile(definition, at: JSONPointer("/specs").appending(name))
        namedCache[name] = (spec, expansion - expansionBefore, deepest - depth)
        deepest = max(deepest, deepestBefore)
        resolvingNames.remove(name)
        resolving.removeLast()
        return spec.map { .ref(name, $0) }
    }

    /// Counts `nodes` more against the expansion limit; `false` (reported once, at the first node past it) when
    /// the limit is passed.
    mutating func grow(by nodes: Int, at path: JSONPointer) -> Bool {
        let before = expansion
        expansion = expansion.addingReportingOverflow(nodes).overflow ? Int.max : expansion + nodes
        guard expansion > Self.expansionLimit else { return true }
        if before <= Self.expansionLimit {
            error(
                path, "too_complex",
                "'\(flagKey)' expands past \(Self.expansionLimit) nodes: refs and prerequisites are inlined wherever they are used")
        }
        return false
    }

    // MARK: - Field helpers

    mutating func wrongType<T>(_ path: JSONPointer, _ expected: String) -> T? {
        error(path, "wrong_type", "expected \(expected)")
        return nil
    }

    /// The node's object, with unknown fields and missing required ones reported.
    mutating func fields(_ value: JSONValue, at path: JSONPointer, required: [String], optional: [String]) -> JSONObject? {
        guard case .object(let object) = value else { return wrongType(path, "an object") }
        var ok = true
        for key in object.keys where !required.contains(key) && !optional.contains(key) {
            error(path.appending(key), "unknown_field", "unknown field '\(key)'")
            ok = false
        }
        for key in required where object[key] == nil {
            error(path.appending(key), "missing_field", "'\(key)' is required")
            ok = false
        }
        return ok ? object : nil
    }

    mutating func string(_ object: JSONObject, _ key: String, at path: JSONPointer) -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value, !text.isEmpty else { return wrongType(path.appending(key), "a non-empty string") }
        return text
    }

    mutating func integer(_ object: JSONObject, _ key: String, at path: JSONPointer, minimum: Int? = nil) -> Int? {
        guard let value = object[key] else { return nil }
        guard case .number(let number) = value, let integer = number.int else { return wrongType(path.appending(key), "an integer") }
        if let minimum, integer < minimum {
            error(path.appending(key), "negative_limit", "'\(key)' must be at least \(minimum)")
            return nil
        }
        return integer
    }

    mutating func duration(_ value: JSONValue, at path: JSONPointer) -> Milliseconds? {
        guard let milliseconds = DurationText.parse(value) else {
            error(path, "invalid_duration", "a duration is like \"90s\", \"15m\", \"2h\", \"3d\", \"1w\" or a number of seconds")
            return nil
        }
        return milliseconds
    }

    mutating func instant(_ value: JSONValue, at path: JSONPointer) -> Instant? {
        guard case .string(let text) = value, let instant = ISO8601.parse(text) else {
            error(path, "invalid_date", "expected an ISO 8601 date-time such as \"2026-01-01T09:00:00Z\"")
            return nil
        }
        return instant
    }

    mutating func timeZone(_ value: JSONValue?, at path: JSONPointer) -> (ok: Bool, zone: String?) {
        guard let value else { return (true, nil) }
        guard case .string(let name) = value, TimeZones.isValid(name) else {
            error(path, "invalid_timezone", "expected an IANA time zone such as \"Europe/Paris\"")
            return (false, nil)
        }
        return (true, name)
    }
}
