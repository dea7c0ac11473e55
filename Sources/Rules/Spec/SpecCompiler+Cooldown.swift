extension SpecCompiler {
    /// `cooldown` with `backoff`, or with `day` / `night` / `nightHours` (and an optional sibling `tz`).
    mutating func compileRicherCooldown(_ value: JSONValue, zone: JSONValue?, path: JSONPointer) -> Spec? {
        let at = path.appending("cooldown")
        guard case .object(let object) = value else { return wrongType(at, "an object") }
        if object["backoff"] != nil {
            if zone != nil { error(path.appending("tz"), "unknown_field", "tz goes with a day/night cooldown") }
            guard let fields = fields(value, at: at, required: ["event", "for", "backoff"], optional: []),
                let event = string(fields, "event", at: at), let base = duration(fields["for"]!, at: at.appending("for")),
                zone == nil
            else { return nil }
            return compileBackoff(fields["backoff"]!, event: event, base: base, at: at.appending("backoff")).map { .backoffCooldown($0) }
        }
        guard object["day"] != nil || object["night"] != nil || object["nightHours"] != nil else {
            error(path.appending("tz"), "unknown_field", "tz goes with a day/night cooldown")
            return nil
        }
        let (zoneOK, zoneName) = timeZone(zone, at: path.appending("tz"))
        guard let fields = fields(value, at: at, required: ["event", "day", "night", "nightHours"], optional: []),
            let event = string(fields, "event", at: at)
        else { return nil }
        let day = duration(fields["day"]!, at: at.appending("day"))
        let night = duration(fields["night"]!, at: at.appending("night"))
        let hours = nightHours(fields["nightHours"]!, at: at.appending("nightHours"))
        guard zoneOK, let day, let night, let hours else { return nil }
        return .dayNightCooldown(
            DayNightCooldown(event: event, day: day, night: night, nightFrom: hours.from, nightTo: hours.to, timeZone: zoneName))
    }

    private mutating func nightHours(_ value: JSONValue, at path: JSONPointer) -> (from: Int, to: Int)? {
        guard case .array(let bounds) = value, bounds.count == 2, let from = bounds[0].numberValue?.int,
            let to = bounds[1].numberValue?.int
        else { return wrongType(path, "[fromHour, toHour] integers") }
        for (index, hour) in [from, to].enumerated() where !(0...23).contains(hour) {
            error(path.appending(index), "hour_out_of_range", "hours are 0 to 23")
            return nil
        }
        return (from, to)
    }

    private mutating func compileBackoff(_ value: JSONValue, event: String, base: Milliseconds, at path: JSONPointer) -> BackoffCooldown? {
        guard let fields = fields(value, at: path, required: ["counter", "factor"], optional: ["max"]),
            let counter = string(fields, "counter", at: path), let number = finiteNumber(fields["factor"]!, at: path.appending("factor"))
        else { return nil }
        guard number.double >= 1 else {
            error(path.appending("factor"), "invalid_factor", "a backoff factor is a number of at least 1")
            return nil
        }
        // Integers keep exact integer milliseconds; a factor past Int64 saturates at the first step either way.
        let factor: BackoffCooldown.Factor = number.int.map { .integer(Int64($0)) } ?? .fraction(number.double)
        var cap = DurationText.maxSeconds * 1000
        if let value = fields["max"] {
            guard let parsed = duration(value, at: path.appending("max")) else { return nil }
            guard parsed >= base else {
                error(path.appending("max"), "invalid_range", "backoff max must be at least the cooldown's 'for'")
                return nil
            }
            cap = parsed
        }
        return BackoffCooldown(event: event, base: base, counter: counter, factor: factor, cap: cap)
    }
}
