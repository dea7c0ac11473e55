import Rules
import Testing

/// A context is a value even though its fields share one box: a change to one copy is never seen by another,
/// whichever field it touches, and the shared empty context never changes.
@Suite struct UserContextValueTests {
    /// Each way a field can be changed: assigned whole, or changed in place through its map.
    static let changes: [(name: String, change: @Sendable (inout UserContext) -> Void)] = [
        ("launchedAt", { $0.launchedAt = Instant(milliseconds: 5) }),
        ("timeZone", { $0.timeZone = "Europe/Paris" }),
        ("counters", { $0.counters["opens"] = 3 }),
        ("events", { $0.events["paid"] = Instant(milliseconds: 7) }),
        ("flags", { $0.flags["beta"] = true }),
        ("attributes", { $0.attributes["plan"] = .string("pro") }),
        ("segments", { $0.segments.insert("vip") }),
        ("donations", { $0.donations["appStarted"] = DonationSummary(count: 1) }),
        ("triggerFires", { $0.triggerFires["welcome"] = Instant(milliseconds: 9) }),
        ("expiries", { $0.expiries[.attribute, "plan"] = Instant(milliseconds: 11) }),
        ("display", { $0.display["tip"] = DisplayState(shownCount: 1) }),
        ("counters replaced whole", { $0.counters = ["opens": 4] })
    ]

    @Test(arguments: 0..<changes.count)
    func changingACopy_leavesTheOriginalAsItWas(index: Int) {
        var original = UserContext()
        original.counters["kept"] = 1
        original.attributes["name"] = .string("Ada")
        let before = original
        var copy = original
        Self.changes[index].change(&copy)
        #expect(copy != original, "\(Self.changes[index].name)")
        #expect(original == before)
        #expect(original.counters["kept"] == 1)
        #expect(original.counters.count == 1)
        // And the other way round: the original changed, the copy taken before keeps its own change only.
        Self.changes[index].change(&original)
        #expect(original == copy)
    }

    @Test(arguments: 0..<changes.count)
    func changingAFreshContext_leavesTheSharedEmptyOneEmpty(index: Int) {
        var context = UserContext()
        Self.changes[index].change(&context)
        #expect(context != UserContext())
        #expect(UserContext() == UserContext())
        #expect(UserContext().counters.isEmpty && UserContext().segments.isEmpty && UserContext().launchedAt == nil)
    }

    @Test func equalFields_inDifferentBoxes_areEqual() {
        var a = UserContext(), b = UserContext()
        a.counters["opens"] = 2
        b.counters["opens"] = 2
        #expect(a == b)
        b.counters["opens"] = 3
        #expect(a != b)
    }
}
