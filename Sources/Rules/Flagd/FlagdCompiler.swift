/// Compiles flagd flag definitions: `{state, variants, defaultVariant, targeting, metadata}` with `$ref`s into
/// `$evaluators` resolved at load time.
struct FlagdCompiler {
    let evaluators: JSONObject
    let setMetadata: JSONObject

    static func isFlagd(_ definition: JSONValue) -> Bool { definition["state"] != nil }

    func compile(key: String, _ definition: JSONValue, specs: inout SpecCompiler) -> Flag? {
        let path = JSONPointer("/flags").appending(key)
        guard
            let fields = specs.fields(
                definition, at: path, required: ["state", "variants"],
                optional: ["defaultVariant", "targeting", "metadata", "description"])
        else { return nil }
        guard case .string(let state) = fields["state"]!, state == "ENABLED" || state == "DISABLED" else {
            specs.error(path.appending("state"), "wrong_type", "state is ENABLED or DISABLED")
            return nil
        }
        guard case .object(let variants) = fields["variants"]!, !variants.isEmpty else {
            specs.error(path.appending("variants"), "wrong_type", "variants is a non-empty object")
            return nil
        }
        var defaultVariant: String?
        switch fields["defaultVariant"] {
        case nil, .null?: defaultVariant = nil
        case .string(let name)?:
            guard variants[name] != nil else {
                specs.error(path.appending("defaultVariant"), "unknown_default_variant", "no variant named '\(name)'")
                return nil
            }
            defaultVariant = name
        default:
            specs.error(path.appending("defaultVariant"), "wrong_type", "defaultVariant is a variant name or null")
            return nil
        }
        var inlined = 0
        var targeting = fields["targeting"].map { resolve($0, depth: 0, inlinedFromRefs: false, count: &inlined) }
        guard inlined <= Self.inliningLimit else {
            specs.error(
                path.appending("targeting"), "too_complex",
                "'\(key)' inlines more than \(Self.inliningLimit) nodes from $evaluators: each $ref is copied wherever it is used")
            return nil
        }
        if case .object(let object)? = targeting, object.isEmpty { targeting = nil }
        if targeting == .null { targeting = nil }
        var metadata = setMetadata
        if case .object(let own)? = fields["metadata"] { for (name, value) in own { metadata[name] = value } }
        let type: Flag.ValueType
        switch variants.values.first! {
        case .bool: type = .boolean
        case .string: type = .string
        case .number: type = .number
        default: type = .object
        }
        return Flag(
            key: key,
            body: .flagd(
                FlagdTargeting(
                    targeting: targeting, variants: variants, defaultVariant: defaultVariant)),
            enabled: state == "ENABLED", valueType: type, description: fields["description"]?.stringValue,
            metadata: metadata, source: definition)
    }

    /// Nodes a flag's targeting may take from `$evaluators`, counted each time a `$ref` copies them. Twelve
    /// evaluators of ten `$ref`s each to the next are 2.2 KB that expand to 10^12 nodes: `specd validate` grew past
    /// 3 GB, and the same body on `POST /v1/rules/validate` aborted the daemon. Literal targeting is not counted:
    /// the file's own size bounds it.
    static let inliningLimit = 100_000

    /// Replaces `{"$ref": name}` with the named evaluator, recursively (bounded, so cycles cannot hang a load). A
    /// reference to a missing evaluator stays as it is: flagd evaluates lazily, so it fails (`PARSE_ERROR`) only
    /// when an evaluation reaches it, and a branch never taken costs nothing. `count` grows by each node copied
    /// from an evaluator; past `inliningLimit` the walk stops (and the caller refuses the flag).
    private func resolve(_ value: JSONValue, depth: Int, inlinedFromRefs: Bool, count: inout Int) -> JSONValue {
        guard depth < 32, count <= Self.inliningLimit else { return .null }
        if inlinedFromRefs { count += 1 }
        switch value {
        case .object(let object):
            if object.count == 1, case .string(let name)? = object["$ref"] {
                guard let target = evaluators[name] else { return value }
                return resolve(target, depth: depth + 1, inlinedFromRefs: true, count: &count)
            }
            var resolved = JSONObject()
            for (key, member) in object {
                resolved[key] = resolve(member, depth: depth + 1, inlinedFromRefs: inlinedFromRefs, count: &count)
            }
            return .object(resolved)
        case .array(let items):
            var resolved: [JSONValue] = []
            resolved.reserveCapacity(items.count)
            for item in items { resolved.append(resolve(item, depth: depth + 1, inlinedFromRefs: inlinedFromRefs, count: &count)) }
            return .array(resolved)
        default:
            return value
        }
    }
}
