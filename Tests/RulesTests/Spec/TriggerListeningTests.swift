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
        #expect(set.triggers(listeningTo: "open").map(\.key) == ["a", "b", "c", "d"])
        #expect(set.triggers(listeningTo: "close").map(\.key) == ["b", "c", "d", "e"])
        #expect(set.triggers(listeningTo: "other").map(\.key) == ["b", "d"])
    }

    @Test func aTriggerNamingAnEventTwice_isReachedOnce() throws {
        let set = try ruleSet(#"{"flags": {}, "triggers": {"t": {"on": ["open", "open"]}}}"#)
        #expect(set.triggers(listeningTo: "open").map(\.key) == ["t"])
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
            #expect(set.triggers(listeningTo: event).map(\.key) == all.filter { $0.listens(to: event) }.map(\.key))
        }
    }

    /// Before: `listens(to:)` used `String` equality, so a trigger on NFC `café` fired on an NFD `café` donation.
    @Test func canonicallyEquivalentEventNames_areDifferentEvents() throws {
        let set = try ruleSet(#"{"flags": {}, "triggers": {"t": {"on": ["\#(nfc)"]}, "any": {}}}"#)
        let trigger = set.triggers["t"]!
        #expect(trigger.listens(to: nfc))
        #expect(!trigger.listens(to: nfd))
        #expect(set.triggers(listeningTo: nfc).map(\.key) == ["t", "any"])
        #expect(set.triggers(listeningTo: nfd).map(\.key) == ["any"])
        let fired = set.immediateFires(
            event: nfd, previous: nil, current: context(), now: t0, request: RequestAttributes(userID: "u1", appVersion: nil))
        #expect(fired.map(\.key) == ["any"])
    }

    @Test func delayedTriggers_areNotImmediateFires() throws {
        let set = try ruleSet(#"{"flags": {}, "triggers": {"now": {"on": ["e"]}, "later": {"on": ["e"], "delay": "5m"}}}"#)
        let fired = set.immediateFires(
            event: "e", previous: nil, current: context(), now: t0, request: RequestAttributes(userID: "u1", appVersion: nil))
        #expect(fired.map(\.key) == ["now"])
        #expect(set.triggers(listeningTo: "e").map(\.key) == ["now", "later"])
    }
}
