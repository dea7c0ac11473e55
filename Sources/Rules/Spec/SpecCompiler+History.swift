extension SpecCompiler {
    /// `{"history": {"event", "over", "per", "stat", OP: n}}`.
    mutating func compileHistory(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        let names = ContextComparison.Operator.allCases.map(\.rawValue)
        guard let fields = fields(value, at: path, required: ["event", "over", "per", "stat"], optional: names),
            let event = string(fields, "event", at: path)
        else { return nil }
        referencedEvents.insert(ByteKey(event))
        var period: LocalPeriod?
        if case .string(let text) = fields["per"]!, let parsed = CalendarPeriod(text: text), parsed.count == 1 {
            period = LocalPeriod(parsed.unit)
        } else {
            error(path.appending("per"), "invalid_period", "per is one of hour, day, week, month, quarter, year")
        }
        let over = duration(fields["over"]!, at: path.appending("over"))
        var statistic: HistoryTest.Statistic?
        if case .string(let text) = fields["stat"]!, let parsed = HistoryTest.Statistic(rawValue: text) {
            statistic = parsed
        } else {
            let known = HistoryTest.Statistic.allCases.map(\.rawValue).joined(separator: ", ")
            error(path.appending("stat"), "invalid_statistic", "stat is one of \(known)")
        }
        let name = singleOperator(fields, names, at: path)
        let threshold = name.flatMap { finiteNumber(fields[$0]!, at: path.appending($0)) }
        guard let period, let over, let statistic, let name, let op = ContextComparison.Operator(rawValue: name), let threshold
        else { return nil }
        let periods = over / period.nominalMilliseconds
        guard periods >= 1 else {
            error(
                path.appending("over"), "window_shorter_than_period",
                "over must be at least one \(period.unit.rawValue) (\(period.nominalMilliseconds / 1000)s)")
            return nil
        }
        guard periods <= Self.maxHistoryPeriods else {
            error(path.appending("over"), "too_many_periods", "over spans at most \(Self.maxHistoryPeriods) periods of 'per'")
            return nil
        }
        return .history(HistoryTest(event: event, periods: Int(periods), period: period, statistic: statistic, op: op, threshold: threshold))
    }
}
