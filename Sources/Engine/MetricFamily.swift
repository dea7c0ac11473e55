/// One metric family of the Prometheus text exposition format (version 0.0.4): its name, HELP, TYPE and samples,
/// written with the format's escapes. Every family on the page goes through here, so each has HELP and TYPE once,
/// before its samples.
public struct MetricFamily: Sendable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// One line: a name suffix (`_bucket`, `_sum`, `_count` for histograms, else empty), labels and a value.
    public struct Sample: Sendable {
        public var suffix: String
        public var labels: [(String, String)]
        public var value: Double

        public init(suffix: String = "", labels: [(String, String)] = [], value: Double) {
            self.suffix = suffix
            self.labels = labels
            self.value = value
        }
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var samples: [Sample]

    public init(name: String, help: String, kind: Kind, samples: [Sample]) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }

    /// A family of one unlabelled sample.
    public init(name: String, help: String, kind: Kind, value: Double) {
        self.init(name: name, help: help, kind: kind, samples: [Sample(value: value)])
    }

    func write(into out: inout String) {
        out += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for sample in samples {
            out += name + sample.suffix
            if !sample.labels.isEmpty {
                out += "{"
                for (index, label) in sample.labels.enumerated() {
                    if index > 0 { out += "," }
                    out += label.0 + "=\"" + Self.escapeLabelValue(label.1) + "\""
                }
                out += "}"
            }
            out += " " + Self.format(sample.value) + "\n"
        }
    }

    /// HELP text escapes only backslash and newline.
    static func escapeHelp(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Label values escape backslash, double quote and newline; everything else is UTF-8 as is.
    static func escapeLabelValue(_ text: String) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// Integers without a fraction, other values as Swift writes them, and the format's spellings of the
    /// non-finite values (`+Inf`, `-Inf`, `NaN`: Swift writes `inf` and `nan`).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
