import Testing

@testable import Rules

/// `DonationPart.differing`: the parts two summaries of one event differ in, one bit per part.
@Suite struct DonationPartTests {
    static let base = DonationSummary(
        count: 3, first: .init(at: Instant(milliseconds: 1_000), appVersion: "1.0"),
        last: .init(at: Instant(milliseconds: 5_000), appVersion: "2.0"),
        recent: [Instant(milliseconds: 1_000), Instant(milliseconds: 3_000), Instant(milliseconds: 5_000)])

    static func bit(_ part: DonationPart) -> UInt8 { 1 << part.rawValue }

    @Test func sameSummary_differsInNothing() {
        #expect(DonationPart.differing(Self.base, Self.base) == 0)
    }

    /// A repeat donation from the last version: count, last instant and recent instants, not the first donation.
    @Test func repeatDonation_fromTheLastVersion_differsInCountLastAtAndRecent() {
        var next = Self.base
        next.count += 1
        next.last = .init(at: Instant(milliseconds: 9_000), appVersion: "2.0")
        next.recent.append(Instant(milliseconds: 9_000))
        #expect(DonationPart.differing(Self.base, next) == Self.bit(.count) | Self.bit(.lastAt) | Self.bit(.recent))
    }

    @Test func eachPartAlone_setsItsOwnBit() {
        var first = Self.base
        first.first = .init(at: Instant(milliseconds: 500), appVersion: "1.0")
        #expect(DonationPart.differing(Self.base, first) == Self.bit(.firstAt))
        var firstVersion = Self.base
        firstVersion.first = .init(at: Instant(milliseconds: 1_000), appVersion: nil)
        #expect(DonationPart.differing(Self.base, firstVersion) == Self.bit(.firstVersion))
        var lastVersion = Self.base
        lastVersion.last = .init(at: Instant(milliseconds: 5_000), appVersion: "2.1")
        #expect(DonationPart.differing(Self.base, lastVersion) == Self.bit(.lastVersion))
        var recent = Self.base
        recent.recent.removeFirst()
        #expect(DonationPart.differing(Self.base, recent) == Self.bit(.recent))
    }
}
