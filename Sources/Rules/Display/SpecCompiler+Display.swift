extension SpecCompiler {
    /// `{"display": {"flag": "k", "shownCount": {"lt": 2}}}` or `{"display": {"flag": "k", "shownWithin": "1d"}}`:
    /// exactly one test, of a flag that declares `display` (no other flag has display state).
    mutating func compileDisplay(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard let fields = fields(value, at: path, required: ["flag"], optional: ["shownCount", "shownWithin"]),
            let flag = string(fields, "flag", at: path)
        else { return nil }
        var ok = true
        if !display.displayFlags.contains(flag) {
            error(path.appending("flag"), "not_a_display_flag", "flag '\(flag)' is not defined with 'display'")
            ok = false
        }
        let present = ["shownCount", "shownWithin"].filter { fields[$0] != nil }
        guard present.count == 1 else {
            error(path, present.isEmpty ? "missing_field" : "multiple_operators", "a display node tests exactly one of shownCount, shownWithin")
            return nil
        }
        let test: DisplayTest?
        if let count = fields["shownCount"] {
            let at = path.appending("shownCount")
            let object = self.fields(count, at: at, required: [], optional: Comparison.Operator.allCases.map(\.rawValue))
            test = object.flatMap { comparison($0, at: at) }.map { .shownCount($0) }
        } else {
            test = duration(fields["shownWithin"]!, at: path.appending("shownWithin")).map { .shownWithin($0) }
        }
        guard ok, let test else { return nil }
        return .display(flag: flag, test)
    }
}
