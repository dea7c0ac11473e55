/// Input that names a field at fault: `ops[2].by must be an integer`. The API answers it as 400 `invalid_field`;
/// a scenario file reports it with its JSON path.
public struct InvalidField: Error, Sendable, Equatable {
    public let field: String
    public let message: String

    public init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }
}
