import Engine
import Rules

/// The hub hears the engine's events and turns each into the SSE event its streams get.
extension StreamHub: Subscribers {
    public func publish(_ event: DomainEvent) {
        switch event {
        case .flagChanged(let user, let key, let evaluation, let previous, let seq, let appVersion):
            publishFlag(user: user, key: key, evaluation: evaluation, previous: previous, seq: seq, appVersion: appVersion, observed: event)
        case .triggerFired(let user, _, _, let seq):
            publishTrigger(event, user: user, seq: seq, observed: event)
        case .contextChanged(_, _, let seq):
            publish(type: event.streamType, user: event.user, data: event.streamData(seq: seq), seq: seq, observed: event)
        case .rulesReloaded:
            publish(type: "rules", user: nil, data: event.streamData(seq: 0), seq: nil)
        }
        // Outside the hub's lock, before the write is answered (the webhook outbox's fsync, when it needs one).
        observer?.didPublish()
    }
}
