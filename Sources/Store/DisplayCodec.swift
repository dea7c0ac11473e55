import Rules

/// Display accounting in the log (action tag 23) and in snapshots (trailing section tag 2 of a user record).
enum DisplayCodec {
    /// `flag, event, at, maxCount? (presence byte, then the count), invalidates`.
    static func encode(
        flag: String, event: DisplayState.Event, at: Instant, maxCount: Int?, invalidates: Bool, into writer: inout BinaryWriter
    ) {
        writer.string(flag)
        writer.byte(eventByte(event))
        writer.instant(at)
        if let maxCount {
            writer.byte(1)
            writer.int(maxCount)
        } else {
            writer.byte(0)
        }
        writer.byte(invalidates ? 1 : 0)
    }

    static func decodeAction(_ reader: inout BinaryReader) throws(BinaryReader.Failure) -> Action {
        let flag = try reader.string()
        let event = try decodeEvent(try reader.byte())
        let at = try reader.instant()
        var maxCount: Int?
        switch try reader.byte() {
        case 0: break
        case 1: maxCount = try reader.int()
        default: throw .malformed
        }
        let invalidates = try reader.byte()
        guard invalidates <= 1 else { throw .malformed }
        return .recordDisplay(flag: flag, event: event, at: at, maxCount: maxCount, invalidates: invalidates == 1)
    }

    /// Tag 2, a count, then per flag: `key, shownCount, firstShown?, lastShown?, invalidated? (reason, at)`.
    static func encodeSection(_ display: CompactMap<DisplayState>, into writer: inout BinaryWriter) {
        writer.byte(2)
        writer.unsigned(UInt64(display.count))
        for (flag, state) in display {
            writer.string(flag)
            writer.int(state.shownCount)
            for instant in [state.firstShown, state.lastShown] {
                if let instant {
                    writer.byte(1)
                    writer.instant(instant)
                } else {
                    writer.byte(0)
                }
            }
            if let invalidated = state.invalidated {
                writer.byte(1 + reasonIndex(invalidated.reason))
                writer.instant(invalidated.at)
            } else {
                writer.byte(0)
            }
        }
    }

    /// The section after its tag byte.
    static func decodeSection(_ reader: inout BinaryReader) throws(BinaryReader.Failure) -> CompactMap<DisplayState> {
        var display = CompactMap<DisplayState>()
        let count = try reader.count()
        guard count > 0 else { throw .malformed }
        for _ in 0..<count {
            let flag = try reader.string()
            var state = DisplayState(shownCount: try reader.int())
            guard state.shownCount >= 0, !display.contains(flag) else { throw .malformed }
            for slot in 0..<2 {
                switch try reader.byte() {
                case 0: continue
                case 1:
                    let instant = try reader.instant()
                    if slot == 0 { state.firstShown = instant } else { state.lastShown = instant }
                default: throw .malformed
                }
            }
            let reason = try reader.byte()
            if reason > 0 {
                let decoded: DisplayState.InvalidationReason
                switch reason {
                case 1: decoded = .actionPerformed
                case 2: decoded = .dismissed
                case 3: decoded = .displayCountExceeded
                default: throw .malformed
                }
                state.invalidated = DisplayState.Invalidation(reason: decoded, at: try reader.instant())
            }
            display[flag] = state
        }
        return display
    }

    private static func eventByte(_ event: DisplayState.Event) -> UInt8 {
        switch event {
        case .shown: return 0
        case .dismissed: return 1
        case .actionPerformed: return 2
        }
    }

    private static func decodeEvent(_ byte: UInt8) throws(BinaryReader.Failure) -> DisplayState.Event {
        switch byte {
        case 0: return .shown
        case 1: return .dismissed
        case 2: return .actionPerformed
        default: throw .malformed
        }
    }

    private static func reasonIndex(_ reason: DisplayState.InvalidationReason) -> UInt8 {
        switch reason {
        case .actionPerformed: return 0
        case .dismissed: return 1
        case .displayCountExceeded: return 2
        }
    }
}
