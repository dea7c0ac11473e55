/// A strict reader of the Prometheus text exposition format (version 0.0.4), for checking a whole `/metrics` page:
/// metric and label name syntax, label value escapes, values, one HELP and one TYPE per family, TYPE before the
/// family's samples, a family's samples together, no duplicate series, counters named `_total`, histogram buckets
/// cumulative with `+Inf` equal to `_count`. Every violation is collected, with its line.
struct PrometheusTextParser {
    struct Sample: Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Family {
        var help: String?
        var type: String?
        var samples: [Sample] = []
    }

    private(set) var families: [String: Family] = [:]
    private(set) var order: [String] = []
    private(set) var problems: [String] = []

    static func parse(_ text: String) -> PrometheusTextParser {
        var parser = PrometheusTextParser()
        parser.read(text)
        parser.checkFamilies()
        return parser
    }

    func sample(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        families.values.lazy.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
    }

    static func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }

    static func isMetricName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first == ":" || isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0 == ":" || isLetter($0) || ("0"..."9").contains($0) }
    }

    static func isLabelName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || isLetter(first), !name.hasPrefix("__") else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || isLetter($0) || ("0"..."9").contains($0) }
    }

    static func value(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            guard !text.lowercased().contains("inf"), !text.lowercased().contains("nan") else { return nil }
            return Double(text)
        }
    }

    /// The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count` belong to their base name.
    func family(of name: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if families[base]?.type == "histogram" { return base }
        }
        return name
    }

    private mutating func read(_ text: String) {
        guard text.hasSuffix("\n") else {
            problems.append("the page does not end with a line feed")
            return
        }
        var current: String?
        var closed: Set<String> = []
        var seen: Set<String> = []
        for (number, line) in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let at = "line \(number + 1): \(line)"
            if line.isEmpty {
                problems.append("\(at): empty line")
                continue
            }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, parts[1] == "HELP" || parts[1] == "TYPE" else { continue }
                let name = String(parts[2])
                guard Self.isMetricName(parts[2]) else {
                    problems.append("\(at): bad metric name")
                    continue
                }
                if current != name {
                    if let current { closed.insert(current) }
                    if closed.contains(name) { problems.append("\(at): family \(name) is split") }
                    current = name
                }
                if families[name] == nil {
                    families[name] = Family()
                    order.append(name)
                }
                if parts[1] == "HELP" {
                    if families[name]?.help != nil { problems.append("\(at): second HELP") }
                    families[name]?.help = parts.count > 3 ? String(parts[3]) : ""
                } else {
                    let type = parts.count > 3 ? String(parts[3]) : ""
                    if families[name]?.type != nil { problems.append("\(at): second TYPE") }
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(type) { problems.append("\(at): unknown type") }
                    if families[name]?.samples.isEmpty == false { problems.append("\(at): TYPE after samples") }
                    families[name]?.type = type
                }
                continue
            }
            guard let sample = parseSample(line, at: at) else { continue }
            let name = family(of: sample.name)
            guard families[name]?.type != nil else {
                problems.append("\(at): sample before its family's TYPE")
                continue
            }
            if current != name { problems.append("\(at): sample outside its family's block") }
            let series = sample.name + "{" + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
            if !seen.insert(series).inserted { problems.append("\(at): duplicate series") }
            families[name]?.samples.append(sample)
        }
    }

    private mutating func parseSample(_ line: Substring, at: String) -> Sample? {
        var rest = line[...]
        let nameEnd = rest.firstIndex { $0 == "{" || $0 == " " } ?? rest.endIndex
        let name = rest[..<nameEnd]
        guard Self.isMetricName(name) else {
            problems.append("\(at): bad metric name")
            return nil
        }
        rest = rest[nameEnd...]
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                guard let equals = rest.firstIndex(of: "=") else {
                    problems.append("\(at): label without value")
                    return nil
                }
                let label = rest[..<equals]
                guard Self.isLabelName(label) else {
                    problems.append("\(at): bad label name \(label)")
                    return nil
                }
                rest = rest[rest.index(after: equals)...]
                guard rest.first == "\"" else {
                    problems.append("\(at): unquoted label value")
                    return nil
                }
                rest = rest.dropFirst()
                var value = ""
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        switch rest.first {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default:
                            problems.append("\(at): bad escape in a label value")
                            return nil
                        }
                        rest = rest.dropFirst()
                    } else if character == "\"" {
                        closed = true
                        break
                    } else if character == "\n" {
                        problems.append("\(at): raw line feed in a label value")
                        return nil
                    } else {
                        value.append(character)
                    }
                }
                guard closed else {
                    problems.append("\(at): unterminated label value")
                    return nil
                }
                if labels.updateValue(value, forKey: String(label)) != nil { problems.append("\(at): repeated label \(label)") }
                if rest.first == "," {
                    rest = rest.dropFirst()
                } else if rest.first != "}" {
                    problems.append("\(at): expected , or }")
                    return nil
                }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else {
            problems.append("\(at): no space before the value")
            return nil
        }
        let fields = rest.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), let value = Self.value(fields[0]) else {
            problems.append("\(at): bad value")
            return nil
        }
        if fields.count == 2, Int64(fields[1]) == nil { problems.append("\(at): bad timestamp") }
        return Sample(name: String(name), labels: labels, value: value)
    }

    private mutating func checkFamilies() {
        for name in order {
            let family = families[name]!
            if family.help == nil { problems.append("\(name): no HELP") }
            if family.type == nil { problems.append("\(name): no TYPE") }
            switch family.type {
            case "counter":
                if !name.hasSuffix("_total") { problems.append("\(name): a counter not named _total") }
                for sample in family.samples where sample.name != name || sample.value < 0 || sample.value.isNaN {
                    problems.append("\(name): bad counter sample \(sample)")
                }
            case "gauge":
                for sample in family.samples where sample.name != name { problems.append("\(name): bad gauge sample name \(sample.name)") }
            case "histogram":
                checkHistogram(name, family)
            default:
                break
            }
        }
    }

    /// Per label set (without `le`): buckets non-decreasing in `le`, a `+Inf` bucket equal to `_count`, a `_sum`.
    private mutating func checkHistogram(_ name: String, _ family: Family) {
        var groups: [[String: String]: (buckets: [(Double, Double)], count: Double?, sum: Double?)] = [:]
        for sample in family.samples {
            var key = sample.labels
            key["le"] = nil
            switch sample.name {
            case name + "_bucket":
                guard let bound = sample.labels["le"].flatMap({ Self.value(Substring($0)) }) else {
                    problems.append("\(name): bucket without a numeric le")
                    continue
                }
                groups[key, default: ([], nil, nil)].buckets.append((bound, sample.value))
            case name + "_count": groups[key, default: ([], nil, nil)].count = sample.value
            case name + "_sum": groups[key, default: ([], nil, nil)].sum = sample.value
            default: problems.append("\(name): unexpected sample \(sample.name)")
            }
        }
        for (labels, group) in groups {
            let buckets = group.buckets
            if buckets.map(\.0) != buckets.map(\.0).sorted() { problems.append("\(name)\(labels): buckets not in le order") }
            for index in buckets.indices.dropFirst() where buckets[index].1 < buckets[index - 1].1 {
                problems.append("\(name)\(labels): bucket counts decrease")
            }
            guard let last = buckets.last, last.0 == .infinity else {
                problems.append("\(name)\(labels): no +Inf bucket")
                continue
            }
            if group.count != last.1 { problems.append("\(name)\(labels): +Inf bucket \(last.1) is not _count \(group.count ?? -1)") }
            if group.sum == nil { problems.append("\(name)\(labels): no _sum") }
        }
    }
}
