/// Everything one evaluation reads. `now` is given, never read from a clock.
public struct EvaluationInput: Sendable {
    public var context: UserContext
    public var now: Instant
    public var request: RequestAttributes

    public init(context: UserContext, now: Instant, request: RequestAttributes) {
        self.context = context
        self.now = now
        self.request = request
    }
}
