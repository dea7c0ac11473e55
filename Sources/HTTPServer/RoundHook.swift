/// A closure an event loop runs every round (`EventLoop.addIterationHook`), held by reference so that the loop can
/// lend it to the round unretained: called out of an array, a closure's context was retained and released around
/// every call, two atomic operations a round for each hook.
final class RoundHook<Result>: Sendable {
    private let body: @Sendable () -> Result

    init(_ body: @escaping @Sendable () -> Result) {
        self.body = body
    }

    func run() -> Result { body() }
}
