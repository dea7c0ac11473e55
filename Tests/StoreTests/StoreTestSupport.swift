import Foundation
import Rules
import Store
import StoreFixtures
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

let t0 = Instant(milliseconds: 1_773_144_000_000)

func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "specd-store-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func mutation(_ user: String, _ actions: Action..., at now: Instant = t0) -> Mutation {
    Mutation(user: user, now: now, actions: actions)
}

/// A deterministic generator for random action sequences.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(max(bound, 1)))
    }

    mutating func action(now: Instant) -> Action {
        let key = ["a", "b", "c", "d"][next(4)]
        switch next(18) {
        case 0: return .increment(counter: key, by: next(5))
        case 1: return .decrement(counter: key, by: next(3))
        case 2: return .setCounter(counter: key, value: next(100))
        case 3: return .resetCounter(counter: key)
        case 4: return .recordEvent(event: key, at: now - Int64(next(100_000)))
        case 5: return .removeEvent(event: key)
        case 6: return .setFlag(flag: key, value: next(2) == 0)
        case 7: return .toggleFlag(flag: key)
        case 8: return .setAttribute(key: key, value: ["n": .int(next(1000)), "s": .string("v\(next(9))")])
        case 9: return .removeAttribute(key: key)
        case 10: return .addSegment(key)
        case 11: return .removeSegment(key)
        case 12: return .setTimeZone(["Europe/Paris", "UTC", "Asia/Tokyo"][next(3)])
        case 13: return .clear(Action.ClearScope.allCases[next(6)])
        case 14, 15: return .donate(event: key, at: now - Int64(next(1_000_000)), appVersion: next(2) == 0 ? "1.\(next(3))" : nil)
        case 16: return next(10) == 0 ? .erase : .resetDonations(event: key)
        default: return .recordTriggerFire(trigger: key, at: now)
        }
    }
}
