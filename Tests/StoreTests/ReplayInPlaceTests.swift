import Rules
import TestRandom
import Testing

@testable import Store

/// Replay's faster paths answer exactly as the plain ones: a batch applied to an existing context in place, and
/// the reader's unchecked varint and fixed-width reads.
@Suite struct ReplayInPlaceTests {
    /// Random contexts and batches without `erase`, under no caps and under small ones (so some are refused): the
    /// same state, effects and refusal as through an optional.
    @Test(arguments: [
        ContextLimits.unlimited, ContextLimits(maxCounters: 2, maxEvents: 2, maxFlags: 2, maxAttributes: 2, maxSegments: 2, maxDonationEvents: 2)
    ])
    func applyInPlaceToExisting_matchesThePathThroughAnOptional(limits: ContextLimits) throws {
        var generator = SplitMix(seed: 21)
        var state: UserContext? = try Reducer.apply(mutation("u", .increment(counter: "a", by: 1)), to: nil).state
        for step in 0..<3_000 {
            let now = t0 + Int64(step * 1_000)
            var actions: [Action] = []
            while actions.count < 1 + generator.next(upTo: 3) {
                let action = generator.next(upTo: 20) == 0 ? .cancelPendingFire(trigger: "t", due: now) : generator.action(now: now)
                if case .erase = action { continue }
                actions.append(action)
            }
            let batch = Mutation(user: "u", now: now, actions: actions)
            var throughOptional = state
            var inPlace = try #require(state)
            let expected = Result { () throws(ReducerError) in try Reducer.applyInPlace(batch, to: &throughOptional, limits: limits) }
            let got = Result { () throws(ReducerError) in
                try Reducer.applyInPlace(batch, toExisting: &inPlace, policy: HistoryPolicy(), limits: limits)
            }
            #expect(got == expected, "step \(step): \(actions)")
            #expect(inPlace == throughOptional, "step \(step): \(actions)")
            state = throughOptional
        }
    }

    /// Every varint length, at every distance from the end of the bytes (the fast path needs eleven bytes left),
    /// including overlong and truncated ones: the same value, the same position after, the same failure.
    @Test func unsigned_readsAlikeWithAndWithoutRoomForTheFastPath() {
        var generator = SplitMix(seed: 22)
        for _ in 0..<2_000 {
            var encoded: [UInt8]
            switch generator.next(upTo: 4) {
            case 0:
                // Overlong: continuation bits past ten bytes.
                encoded = Array(repeating: 0x80, count: 10 + generator.next(upTo: 4)) + [0x01]
            case 1:
                // Truncated: a continuation bit on the last byte.
                encoded = Array(repeating: 0xFF, count: 1 + generator.next(upTo: 12))
            default:
                var writer = BinaryWriter()
                writer.unsigned(UInt64(truncatingIfNeeded: generator.next(upTo: Int.max)) >> UInt64(generator.next(upTo: 64)))
                encoded = writer.bytes
            }
            for padding in 0..<14 {
                let readable = encoded + Array(repeating: 0x7F, count: padding)
                let reference = Self.referenceUnsigned(readable)
                let bytes = [0x05] + readable
                var reader = BinaryReader(bytes, from: 1, to: 1 + encoded.count + padding)
                let got = Result { () throws(BinaryReader.Failure) in try reader.unsigned() }
                let expected = reference.map { $0.value }
                #expect(got == expected, "\(encoded) + \(padding)")
                if case .success(let read) = reference { #expect(reader.offset == 1 + read.length) }
                // An overlong varint is refused having read its eleventh byte, on either path.
                if case .failure(.malformed) = reference { #expect(reader.offset == 1 + 11, "\(encoded) + \(padding)") }
            }
        }
    }

    @Test func fixed32_readsLittleEndianAndRefusesShortInput() throws {
        var reader = BinaryReader([9, 0x78, 0x56, 0x34, 0x12, 1, 2, 3], from: 1)
        #expect(try reader.fixed32() == 0x1234_5678)
        #expect(throws: BinaryReader.Failure.truncated) { try reader.fixed32() }
        #expect(reader.offset == 5)
    }

    /// LEB128 read byte by byte: the definition the reader must keep.
    static func referenceUnsigned(_ bytes: [UInt8]) -> Result<(value: UInt64, length: Int), BinaryReader.Failure> {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if shift >= 64 { return .failure(.malformed) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return .success((result, index + 1)) }
            shift += 7
        }
        return .failure(.truncated)
    }
}
