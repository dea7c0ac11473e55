import Rules
import Testing

/// Expiring values (docs/api.md, "Expiring values"): what reads as missing when, and the next changes they make.
@Suite struct ExpiryTests {
    static let expiry = t0 + hour

    static func user() -> UserContext {
        context {
            $0.attributes["plan"] = .string("pro")
            $0.flags["beta"] = true
            $0.segments.insert("vip")
            $0.expiries[.attribute, "plan"] = expiry
            $0.expiries[.flag, "beta"] = expiry
            $0.expiries[.segment, "vip"] = expiry
        }
    }

    struct Boundary: CustomTestStringConvertible, Sendable {
        let spec: String
        let offset: Int64
        let holds: Bool
        var testDescription: String { "\(spec) at expiry \(offset >= 0 ? "+" : "")\(offset) ms → \(holds)" }
    }

    static let boundaries: [Boundary] = [
        .init(spec: #"{"attr": {"key": "plan", "eq": "pro"}}"#, offset: -1, holds: true),
        .init(spec: #"{"attr": {"key": "plan", "eq": "pro"}}"#, offset: 0, holds: false),
        .init(spec: #"{"attr": {"key": "plan", "exists": true}}"#, offset: 0, holds: false),
        .init(spec: #"{"flag": "beta"}"#, offset: -1, holds: true),
        .init(spec: #"{"flag": "beta"}"#, offset: 0, holds: false),
        .init(spec: #"{"flag": {"key": "beta", "equals": true, "ifMissing": true}}"#, offset: 0, holds: true),
        .init(spec: #"{"segment": "vip"}"#, offset: -1, holds: true),
        .init(spec: #"{"segment": "vip"}"#, offset: 0, holds: false),
        .init(spec: #"{"segments": {"all": ["vip"]}}"#, offset: 1, holds: false)
    ]

    @Test(arguments: boundaries)
    func value_readsAsMissing_fromItsExpiryInstantOn(_ test: Boundary) throws {
        let spec = try compileSpec(test.spec)
        #expect(spec.holds(input(Self.user(), Self.expiry + test.offset)) == test.holds)
    }

    @Test func input_dropsExpiredValues_andKeepsPendingExpiries() {
        let before = input(Self.user(), Self.expiry - 1)
        #expect(before.context.attributes["plan"] == .string("pro"))
        #expect(before.context.expiries.count == 3)
        let after = input(Self.user(), Self.expiry)
        #expect(after.context.attributes["plan"] == nil && after.context.flags["beta"] == nil && !after.context.segments.contains("vip"))
        #expect(after.context.expiries.isEmpty)
        var moved = before
        moved.now = Self.expiry
        #expect(moved.context == after.context)
    }

    @Test func nextChange_isTheExpiryOfAValueTheFlagReads() throws {
        let set = try ruleSet(
            #"{"flags": {"p": {"when": {"attr": {"key": "plan", "eq": "pro"}}}, "q": {"when": {"counter": {"key": "c", "gte": 1}}}}}"#)
        #expect(set.nextChange("p", input(Self.user())) == Self.expiry)
        #expect(set.nextChange("q", input(Self.user())) == nil)
        #expect(set.nextChange("p", input(Self.user(), Self.expiry)) == nil)
    }

    @Test func nextChange_passesOverAnExpiryThatChangesNothing() throws {
        let set = try ruleSet(#"{"flags": {"p": {"when": {"attr": {"key": "plan", "eq": "gold"}}}}}"#)
        // plan is "pro": false with it and false without it.
        #expect(set.nextChange("p", input(Self.user())) == nil)
    }

    @Test func nextChange_ofSegments_takesTheFirstExpiryThatFlipsTheAnswer() throws {
        let set = try ruleSet(#"{"flags": {"p": {"when": {"segments": {"any": ["vip", "staff"]}}}}}"#)
        var user = Self.user()
        user.segments.insert("staff")
        user.expiries[.segment, "staff"] = Self.expiry + hour
        // vip goes at +1h, staff still holds; staff goes at +2h.
        #expect(set.nextChange("p", input(user)) == Self.expiry + hour)
    }

    @Test func nextChange_ofAFlagdFlag_seesTheAttributesItReadsExpire() throws {
        let set = try ruleSet(
            #"{"flags": {"d": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]}}}}"#
        )
        #expect(set.evaluate("d", input(Self.user())).value == true)
        #expect(set.nextChange("d", input(Self.user())) == Self.expiry)
        #expect(set.evaluate("d", input(Self.user(), Self.expiry)).value == false)
    }

    @Test func contextJSON_showsPendingExpiries_andReadsThemBack() throws {
        let json = ContextJSON.encode(user: "u1", Self.user())
        let expires = try #require(json["expires"])
        #expect(expires["attributes"]?["plan"] == .string("2026-03-10T13:00:00Z"))
        #expect(expires["segments"]?["vip"] == .string("2026-03-10T13:00:00Z"))
        #expect(try ContextJSON.decode(json).expiries == Self.user().expiries)
        #expect(ContextJSON.encode(user: "u1", context())["expires"] == nil)
    }

    @Test func contextJSON_refusesAnExpiryOfAValueItDoesNotHold() throws {
        let inline = try JSONParser().parse(#"{"expires": {"flags": {"ghost": "2026-03-10T13:00:00Z"}}, "flags": {"beta": true}}"#)
        #expect(throws: ContextJSON.FieldError.self) { try ContextJSON.decode(inline) }
        do {
            _ = try ContextJSON.decode(inline)
        } catch {
            #expect(error.field == "context.expires.flags.ghost")
        }
        let unknown = try JSONParser().parse(#"{"expires": {"counters": {}}}"#)
        #expect(throws: ContextJSON.FieldError.self) { try ContextJSON.decode(unknown) }
    }

    @Test func overlay_aValueGivenAgain_takesTheTopsExpiryOrNone() {
        var top = UserContext()
        top.attributes["plan"] = .string("team")
        top.segments.insert("vip")
        top.expiries[.segment, "vip"] = t0 + day
        let merged = Self.user().overlaid(by: top)
        #expect(merged.expiries[.attribute, "plan"] == nil)
        #expect(merged.expiries[.segment, "vip"] == t0 + day)
        #expect(merged.expiries[.flag, "beta"] == Self.expiry)
    }

    @Test func expiries_compareWithoutOrder() {
        let one = ValueExpiries([.init(kind: .flag, key: "a", at: t0), .init(kind: .segment, key: "a", at: t0)])
        let two = ValueExpiries([.init(kind: .segment, key: "a", at: t0), .init(kind: .flag, key: "a", at: t0)])
        #expect(one == two)
        #expect(one != ValueExpiries([.init(kind: .flag, key: "a", at: t0)]))
    }
}
