extension SpecCompiler {
    /// Compiles flag `key` of the document, or hands back the one compiled before (`nil`: no such flag, or it is
    /// invalid, its problems reported at its own path).
    mutating func resolveFlag(_ key: String) -> Flag? {
        if let done = flagResolution.compiled[ByteKey(key)] { return done }
        guard let definition = flagResolution.definitions[key] else { return nil }
        let path = JSONPointer("/flags").appending(key)
        let format = flagResolution.format
        if format == .specd, FlagdCompiler.isFlagd(definition) {
            error(path.appending("state"), "unknown_field", "a flagd definition in a set loaded as specd format")
            flagResolution.compiled[ByteKey(key)] = .some(nil)
            return nil
        }
        let outerKey = flagKey
        let outerExpansion = expansion
        let (outerDepth, outerDeepest) = (depth, deepest)
        expansion = 0
        depth = 0
        deepest = 0
        flagKey = key
        flagResolution.compiling.append(key)
        let flag: Flag?
        if format == .flagd || (format == .auto && FlagdCompiler.isFlagd(definition)) {
            let flagd = flagResolution.flagd
            flag = flagd.compile(key: key, definition, specs: &self)
        } else {
            // The compiler takes this state over by a swap, not a copy: a copy held by both left every collection
            // it then grew (diagnostics, the flags compiled so far) shared, so each flag copied them all, and
            // 40 000 flags with a warning each took minutes to validate.
            var compiler = FlagCompiler(key: key, path: path, specs: SpecCompiler(named: [:]))
            swap(&self, &compiler.specs)
            flag = compiler.compile(definition)
            swap(&self, &compiler.specs)
        }
        flagResolution.compiling.removeLast()
        flagResolution.sizes[ByteKey(key)] = expansion
        flagResolution.depths[ByteKey(key)] = deepest
        flagKey = outerKey
        expansion = outerExpansion
        (depth, deepest) = (outerDepth, outerDeepest)
        let positioned = flag.map { $0.at(position: flagResolution.positions[ByteKey(key)] ?? 0) }
        flagResolution.compiled[ByteKey(key)] = .some(positioned)
        return positioned
    }

    /// `{"prerequisite": {"flag": "k", "equals": V}}` or `{..., "variant": "name"}`.
    mutating func compilePrerequisite(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard let fields = fields(value, at: path, required: ["flag"], optional: ["equals", "variant"]),
            let key = string(fields, "flag", at: path)
        else { return nil }
        let tests = ["equals", "variant"].filter { fields[$0] != nil }
        guard tests.count == 1 else {
            error(path, tests.isEmpty ? "missing_field" : "multiple_operators", "a prerequisite has exactly one of 'equals' or 'variant'")
            return nil
        }
        let flagPath = path.appending("flag")
        guard flagResolution.definitions[key] != nil else {
            error(flagPath, "unknown_prerequisite", "no flag named '\(key)' in flags")
            return nil
        }
        if let cycle = flagResolution.cycle(through: key) {
            error(flagPath, "cycle", "flag '\(key)' depends on itself through \(cycle)")
            return nil
        }
        // A display flag's answer depends on its group (other flags' display state), which is attached after every
        // flag is compiled: a copy inlined here would answer without it. A display node, or a group's order, says
        // what is meant instead.
        if display.displayFlags.contains(key) {
            error(flagPath, "display_prerequisite", "flag '\(key)' has display accounting: test it with a display node, not as a prerequisite")
            return nil
        }
        guard let flag = resolveFlag(key) else { return nil }
        // Inlined here: the prerequisite's whole expansion counts again in this flag's.
        guard grow(by: flagResolution.sizes[ByteKey(key)] ?? 0, at: flagPath),
            deepen(by: flagResolution.depths[ByteKey(key)] ?? 0, at: flagPath)
        else { return nil }
        if let expected = fields["equals"] {
            guard let type = Flag.ValueType(of: expected) else {
                return wrongType(path.appending("equals"), "a boolean, string, number or object")
            }
            let types = flag.answerTypes
            guard types.contains(type) else {
                let answers = types.map(\.rawValue).sorted().joined(separator: " or ")
                error(path.appending("equals"), "wrong_type", "flag '\(key)' answers \(answers) values, not \(type.rawValue)")
                return nil
            }
            return .prerequisite(flag, .equals(expected))
        }
        guard case .string(let name)? = fields["variant"], flag.variantNames.contains(where: { $0.bytesEqual(name) }) else {
            let names = flag.variantNames
            error(
                path.appending("variant"), "unknown_variant",
                names.isEmpty
                    ? "flag '\(key)' has no variants" : "flag '\(key)' has no variant \(JSONWriter.string(fields["variant"] ?? .null))")
            return nil
        }
        return .prerequisite(flag, .variant(name))
    }
}
