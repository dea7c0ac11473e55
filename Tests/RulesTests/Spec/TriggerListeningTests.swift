import Rules
import Testing

/// Which triggers a donation reaches: declaration order, every-event triggers merged with named ones, and event
/// names compared as bytes (README, "Users and keys").
@Suite struct TriggerListeningTests {
    private let nfc = "caf\u{E9}"
    private let nfd = "cafe\u{301}"

    @Test func namedAndEveryEventTriggers_comeInDeclarationOrder() throws {
        let set = try ruleSet(
            #"""
            {"flags": {}, "triggers": {
              "a": {"on": ["open"]},
              "b": {},
              "c": {"on": ["close", "open"]},
              "d": {},
              "e": {"on": ["close"]}
            }}
            """#)
        #expect(set.listeners(of: "open").map(\.key) == ["a", "b", "c", "d"])
        #expect(set.listeners(of: "close").map(\.key) == ["b", "c", "d", "e"])
        #expect(set.listeners(of: "other").map(\.key) == ["b", "d"])
    }

    @Test func aTriggerNamingAnEventTwice_isReachedOnce() throws {
        let set = try ruleSet(#"{"flags": {}, "triggers": {"t": {"on": ["open", "open"]}}}"#)
        #expect(set.listeners(of: "open").map(\.key) == ["t"])
    }

    @Test func eachTriggerReached_listensToTheEvent_andNoOtherDoes() throws {
        let set = try ruleSet(
            #"""
            {"flags": {}, "triggers": {
              "a": {"on": ["x", "y"]}, "b": {}, "c": {"on": ["y"]}, "d": {"on": ["z", "x"]}
            }}
            """#)
        let all = set.triggerKeys.map { set.triggers[$0]! }
        for event in ["x", "y", "z", "w", ""] {
            #expect(set.listeners(of: event).map(\.key) == all.filter { $0.listens(to: event) }.map(\.key))
        }
    }

    /// Before: `listens(to:)` used `String` equality, so a trigger on NFC `café` fired on an NFD `café` donation.
    @Test func canonicallyEquivalentEventNames_areDifferentEvents() throws {
        let set = try ruleSet(#"{"flags": {}, "triggers": {"t": {"on": ["\#(nfc)"]}, "any": {}}}"#)
        let trigger = set.triggers["t"]!
        #expect(trigger.listens(to: nfc))
        #expect(!trigger.listens(to: nfd))
        #expect(set.listeners(of: nfc).map(\.key) == ["t", "any"])
        #expect(set.listeners(of: nfd).map(\.key) == ["any"])
        let fired = set.immediateFires(
            event: nfd, previous: nil, current: context(), now: t0, request: RequestAttributes(userID: "u1", appVersion: nil))
        #expect(fired.map(\.key) == ["any"])
    }

    /// Both spellings in the index: each reaches only the triggers naming its own bytes, and every-event ones.
    @Test func bothSpellingsInTheIndex_eachReachesItsOwnTriggers() throws {
        let set = try ruleSet(
            #"{"flags": {}, "triggers": {"a": {"on": ["\#(nfc)"]}, "b": {"on": ["\#(nfd)"]}, "any": {}, "c": {"on": ["\#(nfd)", "\#(nfc)"]}}}"#)
        #expect(set.listeners(of: nfc).map(\.key) == ["a", "any", "c"])
        #expect(set.listeners(of: nfd).map(\.key) == ["b", "any", "c"])
        let all = set.triggerKeys.map { set.triggers[$0]! }
        for event in [nfc, nfd, "cafe"] {
            #expect(set.listeners(of: event).map(\.key) == all.filter { $0.listens(to: event) }.map(\.key))
        }
    }

    /// The warning for a trigger event no spec counts compares names as bytes too: a trigger on NFD `café` whose
    /// only spec counts NFC `café` never fires for what the spec counts.
    @Test func unreferencedTriggerEvent_comparesNamesAsBytes() throws {
        let found = try diagnostics(
            #"{"flags": {"f": {"when": {"donations": {"event": "\#(nfc)", "gte": 1}}}}, "triggers": {"t": {"on": ["\#(nfd)"]}, "u": {"on": ["\#(nfc)"]}}}"#
        )
        let warned = found.filter { $0.code == "unreferenced_trigger_event" }.map(\.path)
        #expect(warned == ["/triggers/t/on/0"])
    }

    @Test func delayedTriggers_areNotImmediateFires() throws {
        let set = try ruleSet(#"{"flags": {}, "triggers": {"now": {"on": ["e"]}, "later": {"on": ["e"], "delay": "5m"}}}"#)
        let fired = set.immediateFires(
            event: "e", previous: nil, current: context(), now: t0, request: RequestAttributes(userID: "u1", appVersion: nil))
        #expect(fired.map(\.key) == ["now"])
        #expect(set.listeners(of: "e").map(\.key) == ["now", "later"])
    }
}
