/// The decoded `{name}` segments of a matched route, in path order. Routes have one or two, so two are kept in
/// place and any further ones in an array: an array for every routed request was an allocation, and its destroy a
/// pass through the runtime's generic tuple witnesses, some 600 instructions a request.
public struct RouteParameters: Sendable {
    /// A struct, not a tuple: an optional tuple is copied through the runtime's generic tuple witnesses.
    public struct Parameter: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    // Not optionals: assigning an optional struct destroyed its old value through the runtime's generic witnesses
    // (some 170 instructions a parameter), even where it was known to be `nil`. `stored` says which are set.
    private var first = Parameter(name: "", value: "")
    private var second = Parameter(name: "", value: "")
    private var stored = 0
    private var rest: [Parameter] = []

    public init() {}

    public var count: Int { stored }
    public var isEmpty: Bool { stored == 0 }

    public mutating func append(name: String, value: String) {
        switch stored {
        case 0: first = Parameter(name: name, value: value)
        case 1: second = Parameter(name: name, value: value)
        default: rest.append(Parameter(name: name, value: value))
        }
        stored += 1
    }

    /// The value of the first parameter with that name.
    public func value(named name: String) -> String? {
        if stored >= 1, first.name == name { return first.value }
        if stored >= 2, second.name == name { return second.value }
        return rest.first { $0.name == name }?.value
    }

    /// In path order.
    public var all: [Parameter] {
        switch stored {
        case 0: []
        case 1: [first]
        default: [first, second] + rest
        }
    }
}
