import Foundation
import Rules
import Store
import StoreFixtures
import Synchronization
import TestRandom

#if canImport(Glibc)
import Glibc
#endif

let t0 = Instant(milliseconds: 1_773_144_000_000)

func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "specd-store-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A database in `directory` that never fsyncs, with a fixed clock for its snapshots (recovery tests).
func openDatabase(
    _ directory: String, clock: @escaping @Sendable () -> Instant = { t0 }, shardCount: Int = 64, maxUsers: Int = 0
) throws -> Database {
    var options = Database.Options(directory: directory, fsync: .never, shardCount: shardCount, maxUsers: maxUsers)
    options.clock = clock
    return try Database(options: options)
}

func mutation(_ user: String, _ actions: Action..., at now: Instant = t0) -> Mutation {
    Mutation(user: user, now: now, actions: actions)
}

/// Random actions for replay and reducer tests.
extension SplitMix {
    mutating func action(now: Instant) -> Action {
        let key = ["a", "b", "c", "d"][next(upTo: 4)]
        switch next(upTo: 19) {
        case 0: return .increment(counter: key, by: next(upTo: 5))
        case 1: return .decrement(counter: key, by: next(upTo: 3))
        case 2: return .setCounter(counter: key, value: next(upTo: 100))
        case 3: return .resetCounter(counter: key)
        case 4: return .recordEvent(event: key, at: now - Int64(next(upTo: 100_000)))
        case 5: return .removeEvent(event: key)
        case 6: return .setFlag(flag: key, value: next(upTo: 2) == 0)
        case 7: return .toggleFlag(flag: key)
        case 8: return .setAttribute(key: key, value: ["n": .int(next(upTo: 1000)), "s": .string("v\(next(upTo: 9))")])
        case 9: return .removeAttribute(key: key)
        case 10: return .addSegment(key)
        case 11: return .removeSegment(key)
        case 12: return .setTimeZone(["Europe/Paris", "UTC", "Asia/Tokyo"][next(upTo: 3)])
        case 13: return .clear(Action.ClearScope.allCases[next(upTo: 6)])
        case 14, 15: return .donate(event: key, at: now - Int64(next(upTo: 1_000_000)), appVersion: next(upTo: 2) == 0 ? "1.\(next(upTo: 3))" : nil)
        case 16: return next(upTo: 10) == 0 ? .erase : .resetDonations(event: key)
        case 17:
            return .recordDisplay(
                flag: key, event: DisplayState.Event.allCases[next(upTo: 3)], at: now - Int64(next(upTo: 100_000)),
                maxCount: next(upTo: 2) == 0 ? nil : 1 + next(upTo: 3), invalidates: next(upTo: 2) == 0)
        default: return .recordTriggerFire(trigger: key, at: now)
        }
    }
}
