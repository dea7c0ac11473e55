import TestRandom
import Testing

@testable import Rules

/// `DonationHistory` against a plain array doing the same operations: the split into a shared run and a tail is
/// invisible to every reader, and a copy never sees the changes made to another.
@Suite struct DonationHistoryTests {
    static func instant(_ milliseconds: Int) -> Instant { Instant(milliseconds: Int64(milliseconds)) }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomOperations_readAsTheArrayDoingTheSame(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var history = DonationHistory()
        var model: [Instant] = []
        var copies: [(DonationHistory, [Instant])] = []
        for step in 0..<4_000 {
            switch random.next(upTo: 10) {
            case 0...5:
                let next = Self.instant((model.last.map { Int($0.milliseconds) } ?? 0) + random.next(upTo: 3))
                history.append(next)
                model.append(next)
            case 6, 7:
                let position = random.next(upTo: model.count + 1)
                let value = Self.instant(random.next(upTo: 100_000))
                history.insert(value, at: position)
                model.insert(value, at: position)
            default:
                let k = random.next(upTo: Swift.min(model.count, 80) + 1)
                history.removeFirst(k)
                model.removeFirst(k)
            }
            #expect(history.count == model.count)
            #expect(history.isEmpty == model.isEmpty)
            #expect(history.last == model.last)
            #expect(Array(history) == model, "step \(step)")
            if step % 97 == 0 { copies.append((history, model)) }
        }
        // Every copy kept its instants through all the changes made after it.
        for (copy, expected) in copies { #expect(Array(copy) == expected) }
    }

    @Test func equality_isByInstants_whereverTheyAreHeld() {
        let instants = (0..<200).map { Self.instant($0 * 10) }
        let settled = DonationHistory(instants)
        var appended = DonationHistory()
        for instant in instants { appended.append(instant) }
        var trimmed = DonationHistory([Self.instant(-5)] + instants)
        trimmed.removeFirst()
        #expect(settled == appended)
        #expect(appended == trimmed)
        var changed = appended
        changed.removeFirst()
        changed.insert(Self.instant(1), at: 0)
        #expect(changed != appended)
        var longer = settled
        longer.append(Self.instant(5_000))
        #expect(longer != settled)
        #expect(DonationHistory() == [])
    }

    @Test func aDonationToASharedHistory_copiesTheTail_notTheRun() {
        var history = DonationHistory((0..<1_000).map { Self.instant($0) })
        let before = history
        history.append(Self.instant(1_000))
        history.removeFirst()
        #expect(history.sharesRun(with: before))
        #expect(Array(before) == (0..<1_000).map { Self.instant($0) })
        #expect(Array(history) == (1...1_000).map { Self.instant($0) })
    }

    @Test func theTail_joinsTheRun_atItsLimit_andTheRoomStaysBounded() {
        var history = DonationHistory((0..<1_000).map { Self.instant($0) })
        for step in 1...(5 * DonationHistory.tailLimit) {
            history.append(Self.instant(999 + step))
            history.removeFirst()
            #expect(history.storedCapacity <= 1_000 + 2 * DonationHistory.tailLimit)
        }
        #expect(Array(history) == (5 * DonationHistory.tailLimit..<(1_000 + 5 * DonationHistory.tailLimit)).map { Self.instant($0) })
    }

    @Test func firstIndex_findsWhatALinearSearchFinds_atTheEndsAndBetween() {
        for length in 0...7 {
            // Duplicates included: the ends are tried before the search, and a tie at either end must not fool it.
            let instants = (0..<length).map { Self.instant($0 / 2 * 10) }
            var split = DonationHistory(Array(instants.prefix(length / 2)))
            for instant in instants.dropFirst(length / 2) { split.append(instant) }
            for threshold in -1...(length * 5 + 1) {
                let expected = instants.firstIndex { $0.milliseconds >= threshold } ?? length
                #expect(DonationSummary.firstIndex(in: split) { $0.milliseconds >= threshold } == expected)
                #expect(DonationSummary.firstIndex(in: DonationHistory(instants)) { $0.milliseconds >= threshold } == expected)
            }
        }
    }

    @Test func manyDroppedAtOnce_leaveRoomForWhatIsLeft_only() {
        var history = DonationHistory((0..<1_000).map { Self.instant($0) })
        history.removeFirst(990)
        #expect(Array(history) == (990..<1_000).map { Self.instant($0) })
        #expect(history.storedCapacity < 100)
    }

    @Test func removingEverything_leavesAnEmptyHistory_thatTakesNewInstants() {
        var history: DonationHistory = [Self.instant(1), Self.instant(2)]
        history.append(Self.instant(3))
        history.removeFirst(3)
        #expect(history.isEmpty && history.last == nil && history == [])
        history.insert(Self.instant(7), at: 0)
        #expect(Array(history) == [Self.instant(7)])
    }
}
