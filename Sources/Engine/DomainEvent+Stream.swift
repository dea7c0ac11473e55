import Rules

/// A domain event as a stream carries it (docs/api.md, "Streams"): its SSE event type and its data object. The API's
/// stream hub frames these into bytes and a scenario run (`specd test`) compares them with what the author expects:
/// one construction for both.
extension DomainEvent {
    /// The SSE `event:` name.
    public var streamType: String {
        switch self {
        case .flagChanged: "flag"
        case .triggerFired: "trigger"
        case .contextChanged: "context"
        case .rulesReloaded: "rules"
        }
    }

    /// Whose event it is (`nil`: everyone's, a rule reload).
    public var user: String? {
        switch self {
        case .flagChanged(let user, _, _, _, _, _), .triggerFired(let user, _, _, _), .contextChanged(let user, _, _): user
        case .rulesReloaded: nil
        }
    }

    /// The `data:` object. `seq` is the stream id's seq: the write's, or for a change the clock or a reload caused,
    /// the last one before it.
    public func streamData(seq: UInt64) -> JSONValue {
        switch self {
        case .flagChanged(let user, let key, let evaluation, let previous, _, _):
            var data: JSONObject = ["user": .string(user), "key": .string(key), "value": evaluation.value ?? .null]
            if let variant = evaluation.variant { data["variant"] = .string(variant) }
            data["previous"] = previous ?? .null
            data["reason"] = .string(evaluation.reason.rawValue)
            data["seq"] = .int(Int(clamping: seq))
            return .object(data)
        case .triggerFired(let user, let trigger, let at, _):
            return ["user": .string(user), "trigger": .string(trigger), "at": .string(ISO8601.format(at)), "seq": .int(Int(clamping: seq))]
        case .contextChanged(let user, let context, _):
            // Donations go without their `recent` history: a stream event carries the state, not the log.
            return context.map { ContextJSON.encode(user: user, $0, includeRecent: false) } ?? ["user": .string(user), "erased": true]
        case .rulesReloaded(let version):
            return ["version": .string(version)]
        }
    }

    /// The `seq` the event's data carries when its stream id's seq is `streamSeq`: a flag change's is the id's, a
    /// trigger firing's its own write's. The two differ only when writes publish out of their order (two loops): the
    /// firing then still names the write that fired it. The stream and a webhook's body both carry this one, so a
    /// receiver of both sees one event.
    public func dataSeq(streamSeq: UInt64) -> UInt64 {
        if case .triggerFired(_, _, _, let seq) = self { return seq }
        return streamSeq
    }

    /// `streamData(seq:)` as JSON bytes appended to `out`, the same bytes `JSONWriter` makes of it. A flag change and
    /// a trigger's firing are written member by member: they are the events writes make, and building the object
    /// first cost more than the rest of publishing it.
    public func writeStreamData(seq: UInt64, into out: inout [UInt8]) {
        if case .triggerFired(let user, let trigger, let at, _) = self {
            JSONWriter.append(#"{"user":"#, into: &out)
            JSONWriter.writeString(user, into: &out)
            JSONWriter.append(#","trigger":"#, into: &out)
            JSONWriter.writeString(trigger, into: &out)
            JSONWriter.append(#","at":""#, into: &out)
            ISO8601.write(at, into: &out)
            JSONWriter.append(#"","seq":"#, into: &out)
            JSONWriter.appendDecimal(Int(clamping: seq), into: &out)
            out.append(UInt8(ascii: "}"))
            return
        }
        guard case .flagChanged(let user, let key, let evaluation, let previous, _, _) = self else {
            JSONWriter.write(streamData(seq: seq), into: &out)
            return
        }
        JSONWriter.append(#"{"user":"#, into: &out)
        JSONWriter.writeString(user, into: &out)
        JSONWriter.append(#","key":"#, into: &out)
        JSONWriter.writeString(key, into: &out)
        JSONWriter.append(#","value":"#, into: &out)
        JSONWriter.write(evaluation.value ?? .null, into: &out)
        if let variant = evaluation.variant {
            JSONWriter.append(#","variant":"#, into: &out)
            JSONWriter.writeString(variant, into: &out)
        }
        JSONWriter.append(#","previous":"#, into: &out)
        JSONWriter.write(previous ?? .null, into: &out)
        JSONWriter.append(#","reason":"#, into: &out)
        JSONWriter.writeString(evaluation.reason.rawValue, into: &out)
        JSONWriter.append(#","seq":"#, into: &out)
        JSONWriter.appendDecimal(Int(clamping: seq), into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// The length of what `writeStreamData(seq:into:)` writes, counted without writing it.
    public func streamDataByteCount(seq: UInt64) -> Int {
        if case .triggerFired(let user, let trigger, let at, _) = self {
            // `{"user":` `,"trigger":` `,"at":` `,"seq":` `}`, and the date's quotes.
            return 8 + 11 + 6 + 7 + 1 + 2 + JSONWriter.byteCount(string: user) + JSONWriter.byteCount(string: trigger)
                + ISO8601.byteCount(at) + JSONWriter.byteCount(decimal: Int(clamping: seq))
        }
        guard case .flagChanged(let user, let key, let evaluation, let previous, _, _) = self else {
            return JSONWriter.byteCount(streamData(seq: seq))
        }
        return Self.flagDataByteCount(user: user, key: key, evaluation: evaluation, previous: previous, seq: seq)
    }

    /// The member names and punctuation `writeStreamData` writes around a flag change's values:
    /// `{"user":` `,"key":` `,"value":` `,"previous":` `,"reason":` `,"seq":` `}`, and `,"variant":` when present.
    private static let flagDataFixedBytes = 8 + 7 + 9 + 12 + 10 + 7 + 1
    private static let variantMemberBytes = 11

    /// `streamDataByteCount(seq:)` of a flag change, from its parts.
    public static func flagDataByteCount(user: String, key: String, evaluation: Evaluation, previous: JSONValue?, seq: UInt64) -> Int {
        var count = flagDataFixedBytes + JSONWriter.byteCount(string: user) + JSONWriter.byteCount(string: key)
        count += evaluation.value.map(JSONWriter.byteCount) ?? 4
        if let variant = evaluation.variant { count += variantMemberBytes + JSONWriter.byteCount(string: variant) }
        count += previous.map(JSONWriter.byteCount) ?? 4
        // Reasons are ASCII words: no escapes.
        count += evaluation.reason.rawValue.utf8.count + 2
        return count + JSONWriter.byteCount(decimal: Int(clamping: seq))
    }

    /// Whether a user's stream that last saw `lastSeen` for this flag hears this change: only a real change is sent.
    public static func isNews(_ value: JSONValue, lastSeen: JSONValue?) -> Bool { lastSeen != value }
}
