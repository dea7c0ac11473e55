import Rules

/// JSON written for people and diffs (scenario snapshots): two-space indents, one member per line, members in their
/// own order. Scalars are written by `JSONWriter`, so numbers keep their lexical form.
enum PrettyJSON {
    static func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out + "\n"
    }

    private static func write(_ value: JSONValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (index, (key, member)) in object.enumerated() {
                out += inner + JSONWriter.quoted(key) + ": "
                write(member, indent: inner, into: &out)
                out += index + 1 < object.count ? ",\n" : "\n"
            }
            out += indent + "}"
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += inner
                write(item, indent: inner, into: &out)
                out += index + 1 < items.count ? ",\n" : "\n"
            }
            out += indent + "]"
        default:
            out += JSONWriter.string(value)
        }
    }
}
