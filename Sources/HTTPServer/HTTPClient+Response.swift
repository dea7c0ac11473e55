extension HTTPClient {
    /// A whole response: status, header fields in the order received, body bytes.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The first value of a header, its name matched case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }
}
