/// Everything one evaluation reads. `now` is given, never read from a clock.
///
/// The context is held as it reads at `now`: values whose expiry has come are gone (docs/api.md, "Expiring
/// values"), however the input was made or changed, so no spec has to ask whether a value it reads has expired.
public struct EvaluationInput: Sendable {
    public var context: UserContext {
        didSet { context.removeExpired(at: now) }
    }
    public var now: Instant {
        didSet { context.removeExpired(at: now) }
    }
    public var request: RequestAttributes

    public init(context: UserContext, now: Instant, request: RequestAttributes) {
        self.context = context.removingExpired(at: now)
        self.now = now
        self.request = request
    }
}
