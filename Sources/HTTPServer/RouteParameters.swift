/// The decoded `{name}` segments of a matched route, in path order. Routes have one or two, so two are kept in
/// place and any further ones in an array: an array for every routed request was an allocation, and its destroy a
/// pass through the runtime's generic tuple witnesses, some 600 instructions a request.
public struct RouteParameters: Sendable {
    /// A struct, not a tuple: an optional tuple is copied through the runtime's generic tuple witnesses.
    public struct Parameter: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    private var first: Parameter?
    private var second: Parameter?
    private var rest: [Parameter] = []

    public init() {}

    public var count: Int { first == nil ? 0 : second == nil ? 1 : 2 + rest.count }
    public var isEmpty: Bool { first == nil }

    public mutating func append(name: String, value: String) {
        if first == nil {
            first = Parameter(name: name, value: value)
        } else if second == nil {
            second = Parameter(name: name, value: value)
        } else {
            rest.append(Parameter(name: name, value: value))
        }
    }

    /// The value of the first parameter with that name.
    public func value(named name: String) -> String? {
        if let first, first.name == name { return first.value }
        if let second, second.name == name { return second.value }
        return rest.first { $0.name == name }?.value
    }

    /// In path order.
    public var all: [Parameter] {
        var all: [Parameter] = []
        if let first { all.append(first) }
        if let second { all.append(second) }
        return all + rest
    }
}
