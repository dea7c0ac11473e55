import Engine
import Rules

/// The hub hears the engine's events and turns each into the SSE event its streams get.
extension StreamHub: Subscribers {
    public func publish(_ event: DomainEvent) {
        switch event {
        case .flagChanged(let user, let key, let evaluation, let previous, let seq):
            publishFlag(user: user, key: key, evaluation: evaluation, previous: previous, seq: seq)
        case .triggerFired(let user, let trigger, let at, let seq):
            publish(
                type: "trigger", user: user,
                data: [
                    "user": .string(user), "trigger": .string(trigger),
                    "at": .string(ISO8601.format(at)), "seq": .int(Int(seq))
                ], seq: seq)
        case .contextChanged(let user, let context, let seq):
            // Donations go without their `recent` history: a stream event carries the state, not the log.
            publish(
                type: "context", user: user,
                data: context.map { ContextJSON.encode(user: user, $0, includeRecent: false) } ?? ["user": .string(user), "erased": true],
                seq: seq)
        case .rulesReloaded(let version):
            publish(type: "rules", user: nil, data: ["version": .string(version)], seq: nil)
        }
    }
}
