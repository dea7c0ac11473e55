/// What one JSON Logic evaluation may still spend (`JSONLogic.maxSteps`): each operation and each iteration costs a
/// step, a produced string a step per 64 bytes and a produced array a step per element, and no produced value may
/// pass `JSONLogic.maxValueBytes` or `JSONLogic.maxElements`.
///
/// Owned by one evaluation, on the thread that runs it: `JSONLogic.evaluate` makes one per top-level call and hands
/// it down through the nested calls only.
final class EvaluationBudget: @unchecked Sendable {
    private var steps: Int

    init(steps: Int) {
        self.steps = steps
    }

    func spend(_ cost: Int) throws(JSONLogic.Failure) {
        steps -= cost
        if steps < 0 { throw .overBudget }
    }

    /// Charges a value an operation produced; a value past the size bounds fails at once.
    func charge(_ value: JSONValue) throws(JSONLogic.Failure) {
        switch value {
        case .string(let text):
            let bytes = text.utf8.count
            guard bytes <= JSONLogic.maxValueBytes else { throw .overBudget }
            try spend(bytes / 64)
        case .array(let items):
            guard items.count <= JSONLogic.maxElements else { throw .overBudget }
            try spend(items.count)
        default:
            break
        }
    }
}
