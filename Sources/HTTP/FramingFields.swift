/// The fields that decide a request's framing and connection handling (`Host`, `Content-Length`,
/// `Transfer-Encoding`, `Connection`, `Expect`), noted once as each field line is parsed. Finding them afterwards
/// took a pass over every field per name, each comparing names: a visible part of a small request's cost.
struct FramingFields {
    var hostCount = 0
    /// The last `Host` value (more than one is refused).
    var host: String?
    var contentLengths: [String] = []
    var transferEncodings: [String] = []
    var hasConnection = false
    /// Every `Expect` value, in order: field lines of one name are one list (RFC 9110 §5.3), so each is checked.
    var expectations: [String] = []

    /// Looks at one parsed field: its name's length picks the one name it can be, then the name is compared.
    mutating func note(_ field: HTTPHeaders.Field) {
        switch field.name.utf8.count {
        case 4:
            if HTTPHeaders.namesMatch(field.name, "Host") {
                hostCount += 1
                host = field.value
            }
        case 6:
            if HTTPHeaders.namesMatch(field.name, "Expect") { expectations.append(field.value) }
        case 10:
            if HTTPHeaders.namesMatch(field.name, "Connection") { hasConnection = true }
        case 14:
            if HTTPHeaders.namesMatch(field.name, "Content-Length") { contentLengths.append(field.value) }
        case 17:
            if HTTPHeaders.namesMatch(field.name, "Transfer-Encoding") { transferEncodings.append(field.value) }
        default:
            return
        }
    }
}
