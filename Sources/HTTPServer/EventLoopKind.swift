/// Which readiness mechanism the server uses.
public enum EventLoopKind: String, Sendable, CaseIterable {
    case epoll
    case dispatch
}
