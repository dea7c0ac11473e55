/// Hears every domain event as it is published, with the SSE id streams carry for it, in publishing order. The
/// stream hub calls it under its own lock, so the order it sees is the order of the ids; it must be quick.
public protocol DomainEventObserver: AnyObject, Sendable {
    func published(_ event: DomainEvent, id: String)
    /// After the event was published, outside the hub's lock, on the same thread, before the write that caused it
    /// is answered: the place for slow work that must precede the answer (an fsync).
    func didPublish()
}

extension DomainEventObserver {
    public func didPublish() {}
}
