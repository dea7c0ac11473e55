/// Durations (`"90s"`, `"15m"`, `"2h"`, `"3d"`, `"1w"` or a number of seconds) and calendar periods
/// (`"month"`, `"2 weeks"`, `"quarter"`) as written in rules (docs/rules.md, "Values").
public enum DurationText {
    /// The longest duration a rule may write: 10^12 s, about 31 700 years. Longer ones would only be typos, and the
    /// bound keeps every instant ± duration far inside Int64 milliseconds.
    public static let maxSeconds: Int64 = 1_000_000_000_000

    /// Milliseconds for a duration; `nil` when malformed, negative or not below `maxSeconds`. A day is a fixed 86 400 s.
    public static func parse(_ value: JSONValue) -> Milliseconds? {
        switch value {
        case .number(let number):
            guard number.double >= 0, number.double < Double(maxSeconds) else { return nil }
            return Milliseconds((number.double * 1000).rounded())
        case .string(let text):
            guard let unit = text.last, let count = Int64(text.dropLast()), count >= 0, text.first != "+" else { return nil }
            let scale: Int64
            switch unit {
            case "s": scale = 1
            case "m": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            case "w": scale = 604_800
            default: return nil
            }
            guard count <= maxSeconds / scale, count * scale < maxSeconds else { return nil }
            return count * scale * 1000
        default:
            return nil
        }
    }
}
