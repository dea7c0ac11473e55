// libFuzzer target: the reducer. Random action batches applied to states the reducer itself built, with invariants
// checked after every batch: a refused batch leaves the state exactly as it was; a batch equals its actions applied
// one at a time (all or nothing); each action did what it says (increment adds exactly, decrement floors at 0,
// set sets, donate counts one more); donation summaries stay sane (count >= 0, history ascending and bounded,
// first <= last); and the log and snapshot encodings of the batch and the state round-trip.
//
// Input: a history policy, then up to five batches of up to six actions each.

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// What one action must have done to the state, given the state before it.
func checkStep(_ action: Action, before: UserContext?, after: UserContext?, policy: HistoryPolicy) {
    if case .erase = action {
        require(after == nil, "erase left a state")
        return
    }
    guard let after else { fatalError("\(action) left no state") }
    let old = before?.counters
    switch action {
    case .increment(let counter, let amount):
        let (sum, overflow) = (old?[counter] ?? 0).addingReportingOverflow(amount)
        require(!overflow && after.counters[counter] == sum, "increment \(counter) by \(amount): \(String(describing: after.counters[counter]))")
    case .decrement(let counter, let amount):
        let (difference, overflow) = (old?[counter] ?? 0).subtractingReportingOverflow(amount)
        let expected = overflow ? 0 : max(0, difference)
        require(
            amount >= 0 && after.counters[counter] == expected, "decrement \(counter) by \(amount): \(String(describing: after.counters[counter]))")
    case .setCounter(let counter, let value):
        require(after.counters[counter] == value, "setCounter")
    case .resetCounter(let counter):
        require(after.counters[counter] == 0, "resetCounter")
    case .recordEvent(let event, let at):
        require(after.events[event] == at, "recordEvent")
    case .setFlag(let flag, let value):
        require(after.flags[flag] == value, "setFlag")
    case .toggleFlag(let flag):
        require(after.flags[flag] == !(before?.flags[flag] ?? false), "toggleFlag")
    case .setAttribute(let key, let value):
        require(after.attributes[key] == value, "setAttribute")
    case .removeAttribute(let key):
        require(after.attributes[key] == nil, "removeAttribute")
    case .addSegment(let segment):
        require(after.segments.contains(segment), "addSegment")
    case .removeSegment(let segment):
        require(!after.segments.contains(segment), "removeSegment")
    case .donate(let event, let at, _):
        let count = before?.donations[event]?.count ?? 0
        require(after.donations[event]?.count == count + 1, "donate counts one more")
        require(after.events[event] == at, "donate records the event")
    case .resetDonations(let event):
        require(after.donations[event] == nil, "resetDonations")
    default:
        break
    }
    for (event, summary) in after.donations {
        require(summary.count >= 0 && summary.count >= summary.recent.count, "\(event): count \(summary.count), \(summary.recent.count) recent")
        require(summary.recent.count <= max(policy.maxEntries, 0), "\(event): history past maxEntries")
        require(zip(summary.recent, summary.recent.dropFirst()).allSatisfy { $0 <= $1 }, "\(event): history not ascending")
        require(summary.first != nil && summary.last != nil, "\(event): a donation without first/last")
    }
}

func roundTrip(_ mutation: Mutation, _ state: UserContext?) {
    do {
        let decoded = try MutationCodec.decode(MutationCodec.encode(mutation))
        require(decoded == mutation, "mutation round trip changed it")
    } catch {
        fatalError("an encoded mutation does not decode: \(error)")
    }
    guard let state else { return }
    var writer = BinaryWriter()
    ContextCodec.encode(user: mutation.user, state, into: &writer)
    var reader = BinaryReader(writer.bytes)
    do {
        let (user, decoded) = try ContextCodec.decode(&reader)
        require(user == mutation.user && decoded == state && reader.isAtEnd, "context round trip changed it")
    } catch {
        fatalError("an encoded context does not decode: \(error)")
    }
}

func fuzzReducer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let policy = input.bool() ? HistoryPolicy() : HistoryPolicy(maxEntries: input.int(0...5), maxAge: Int64(input.int(0...100_000_000)))
    var state: UserContext?
    for _ in 0..<input.int(1...5) {
        let mutation = input.mutation()
        if dumpInputs { dumpLine("batch at \(mutation.now): \(mutation.actions)") }
        let before = state
        // The batch one action at a time, checking each step; the first refusal ends it.
        var sequential = before
        var refusal: (index: Int, error: ReducerError)?
        for (index, action) in mutation.actions.enumerated() {
            let stepBefore = sequential
            do {
                _ = try Reducer.apply(Mutation(user: mutation.user, now: mutation.now, actions: [action]), to: sequential, policy: policy)
                _ = try Reducer.applyInPlace(Mutation(user: mutation.user, now: mutation.now, actions: [action]), to: &sequential, policy: policy)
            } catch {
                require(sequential == stepBefore, "a refused single action changed the state")
                refusal = (index, error)
                break
            }
            if case .cancelPendingFire = action {
                // Logged for the record only: the context is left exactly as it was (expired values included, as no
                // write touched it) and no user is created.
                require(sequential == stepBefore, "\(action) changed the state")
                continue
            }
            // Against the state as the action read it: values whose expiry has come read as missing.
            checkStep(action, before: stepBefore?.removingExpired(at: mutation.now), after: sequential, policy: policy)
        }
        do {
            _ = try Reducer.applyInPlace(mutation, to: &state, policy: policy)
            require(refusal == nil, "the batch passed but action \(refusal?.index ?? -1) alone was refused")
            require(state == sequential, "a batch differs from its actions applied one by one")
        } catch {
            require(state == before, "a refused batch changed the state")
            guard let refusal else { fatalError("the batch was refused (\(error)) but every action alone passed") }
            require(error.index == refusal.index, "the batch blames action \(error.index), alone it was \(refusal.index)")
            require(!error.message.isEmpty, "an error without a message")
        }
        roundTrip(mutation, state)
    }
    return 0
}
