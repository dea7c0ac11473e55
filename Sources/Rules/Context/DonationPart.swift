/// The part of one event's donation summary a spec reads. A repeat donation from the version a user last donated
/// from usually changes the count, the last donation's instant and the recent instants, not the first donation nor
/// the last version: the flags that read only those are not re-evaluated by it (a first-use window, "prompt once
/// per version"). A backdated donation can move the first donation; `differs` compares every part, so it is seen.
public enum DonationPart: Int, Hashable, Sendable, CaseIterable {
    /// `donations` without a window.
    case count
    /// `firstDonation` within / not within.
    case firstAt
    /// `firstDonationVersion`.
    case firstVersion
    /// `lastDonation` within / not within.
    case lastAt
    /// `lastDonationVersion`.
    case lastVersion
    /// `donations` within a window, and `history`.
    case recent

    /// Every part, made once: `allCases` built a new array at each use, once per write.
    static let all = allCases

    /// The parts that differ between two summaries of one event, as a set of `rawValue` bits. One call for every
    /// part: a caller asking part by part through a function of its own had both summaries copied (their strings
    /// and recent instants retained, then released) to pass them on.
    static func differing(_ a: DonationSummary, _ b: DonationSummary) -> UInt8 {
        var bits: UInt8 = 0
        for part in all where part.differs(a, b) { bits |= 1 << part.rawValue }
        return bits
    }

    /// Whether this part differs between two summaries of one event.
    func differs(_ a: DonationSummary, _ b: DonationSummary) -> Bool {
        switch self {
        case .count: return a.count != b.count
        case .firstAt: return a.first?.at != b.first?.at
        case .firstVersion: return a.first?.appVersion != b.first?.appVersion
        case .lastAt: return a.last?.at != b.last?.at
        case .lastVersion: return a.last?.appVersion != b.last?.appVersion
        case .recent: return a.recent != b.recent
        }
    }
}
