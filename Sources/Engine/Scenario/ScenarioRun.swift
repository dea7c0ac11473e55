import Rules

/// The outcome of one scenario under one configuration: a result per step, as data for the report and JUnit.
public struct ScenarioRun: Sendable {
    public var scenario: String
    public var file: String
    public var configuration: String
    public var steps: [StepResult]

    public var passed: Bool { steps.allSatisfy(\.passed) }
    public var assertionCount: Int { steps.reduce(0) { $0 + $1.assertions.count } }
    public var failureCount: Int { steps.reduce(0) { $0 + $1.assertions.filter { !$0.passed }.count } }

    public struct StepResult: Sendable {
        public var name: String
        /// The virtual instant the step's actions ran at.
        public var at: Instant
        public var assertions: [AssertionResult]
        /// Every flag answer of every scenario user after the step, when the step asked for a snapshot.
        public var snapshot: JSONValue?
        /// Wall time the step took.
        public var elapsed: Duration

        public var passed: Bool { assertions.allSatisfy(\.passed) }
    }

    public struct AssertionResult: Sendable {
        public var label: String
        public var passed: Bool
        public var expected: JSONValue?
        public var actual: JSONValue?
        /// Why it failed, when expected/actual alone do not say (an action refused, a flag not defined).
        public var message: String?

        public init(label: String, passed: Bool, expected: JSONValue? = nil, actual: JSONValue? = nil, message: String? = nil) {
            self.label = label
            self.passed = passed
            self.expected = expected
            self.actual = actual
            self.message = message
        }
    }
}
