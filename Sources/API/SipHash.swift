/// SipHash (Aumasson and Bernstein, 2012): a keyed 64-bit hash whose collisions nobody can find without the key, so
/// a table keyed by client-chosen strings, hashed with a secret key, cannot be flooded into one run of slots.
/// SipHash-1-3 is the variant Swift's `Hasher` and Python's `hash` use.
enum SipHash {
    /// SipHash-1-3 of `bytes` under `key`.
    static func hash13(_ bytes: UnsafeRawBufferPointer, key: (UInt64, UInt64)) -> UInt64 {
        hash(bytes, key: key, compressionRounds: 1, finalizationRounds: 3)
    }

    /// Any round counts (2 and 4 for the paper's reference vectors). Inlined so the counts are constants.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, key: (UInt64, UInt64), compressionRounds: Int, finalizationRounds: Int) -> UInt64 {
        var state = State(key: key)
        let count = bytes.count
        var index = 0
        while count - index >= 8 {
            state.compress(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)), rounds: compressionRounds)
            index += 8
        }
        // The last word: the 0–7 bytes left, and the length's low byte on top.
        state.compress(lastBytes(bytes, from: index) | UInt64(truncatingIfNeeded: count) << 56, rounds: compressionRounds)
        return state.finalize(rounds: finalizationRounds)
    }

    /// SipHash-1-3 of several byte strings, each padded to whole words: its bytes, a marker byte, then zeros to the
    /// next multiple of eight. No part's bytes are copied together with another's, and no byte is carried from one
    /// part into the next. A marker no UTF-8 text holds (0xFE, 0xFF) ends each part unambiguously, so two lists of
    /// parts give two messages.
    struct Parts {
        private var state: State
        private var length = 0

        init(key: (UInt64, UInt64)) { state = State(key: key) }

        /// Inlined, as `finalize`: called as functions, the state went to memory and back around every part, some
        /// 40 instructions a part of a cache key's three.
        @inline(__always)
        mutating func append(_ bytes: UnsafeRawBufferPointer, marker: UInt8) {
            let count = bytes.count
            var index = 0
            while count - index >= 8 {
                state.compress(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)), rounds: 1)
                index += 8
            }
            // The last 0–7 bytes, then the marker, in one word.
            state.compress(lastBytes(bytes, from: index) | UInt64(marker) << (UInt64(count - index) &* 8), rounds: 1)
            length &+= (count / 8 + 1) * 8
        }

        /// The parts' hash: the message's length (a multiple of eight) in the last word, as SipHash ends.
        @inline(__always)
        consuming func finalize() -> UInt64 {
            state.compress(UInt64(truncatingIfNeeded: length) << 56, rounds: 1)
            return state.finalize(rounds: 3)
        }
    }

    /// The bytes of `bytes` from `index` to its end (fewer than eight) as a little-endian word, the rest zeros.
    /// In at most three loads, where a loop over the bytes cost some 7 instructions a byte, up to half a cache
    /// key's digest: the last eight bytes of a buffer that has them, shifted down; else 4, 2 and 1 bytes as the
    /// count's bits ask. Never reads outside `bytes`.
    @inline(__always)
    static func lastBytes(_ bytes: UnsafeRawBufferPointer, from index: Int) -> UInt64 {
        let count = bytes.count &- index
        guard count > 0 else { return 0 }
        if bytes.count >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count &- 8, as: UInt64.self))
            return word &>> (UInt64(8 &- count) &* 8)
        }
        var word: UInt64 = 0
        var offset = index
        var shift: UInt64 = 0
        if count & 4 != 0 {
            word = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            offset &+= 4
            shift = 32
        }
        if count & 2 != 0 {
            word |= UInt64(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))) &<< shift
            offset &+= 2
            shift &+= 16
        }
        if count & 1 != 0 { word |= UInt64(bytes.load(fromByteOffset: offset, as: UInt8.self)) &<< shift }
        return word
    }

    private struct State {
        var v0: UInt64
        var v1: UInt64
        var v2: UInt64
        var v3: UInt64

        @inline(__always)
        init(key: (UInt64, UInt64)) {
            v0 = key.0 ^ 0x736f_6d65_7073_6575
            v1 = key.1 ^ 0x646f_7261_6e64_6f6d
            v2 = key.0 ^ 0x6c79_6765_6e65_7261
            v3 = key.1 ^ 0x7465_6462_7974_6573
        }

        @inline(__always)
        mutating func compress(_ word: UInt64, rounds: Int) {
            v3 ^= word
            for _ in 0..<rounds { round() }
            v0 ^= word
        }

        @inline(__always)
        mutating func finalize(rounds: Int) -> UInt64 {
            v2 ^= 0xFF
            for _ in 0..<rounds { round() }
            return v0 ^ v1 ^ v2 ^ v3
        }

        @inline(__always)
        mutating func round() {
            v0 &+= v1
            v1 = rotate(v1, 13)
            v1 ^= v0
            v0 = rotate(v0, 32)
            v2 &+= v3
            v3 = rotate(v3, 16)
            v3 ^= v2
            v0 &+= v3
            v3 = rotate(v3, 21)
            v3 ^= v0
            v2 &+= v1
            v1 = rotate(v1, 17)
            v1 ^= v2
            v2 = rotate(v2, 32)
        }

        @inline(__always)
        private func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 { value << bits | value >> (64 - bits) }
    }
}
