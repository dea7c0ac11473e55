/// Hears every domain event as it is published, with the SSE id streams carry for it, in publishing order. The
/// stream hub calls it under its own lock, so the order it sees is the order of the ids; it must be quick.
public protocol DomainEventObserver: AnyObject, Sendable {
    func published(_ event: DomainEvent, id: String)
}
