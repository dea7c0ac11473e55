extension HTTPClient {
    /// Where requests go: a host name or IPv4 address and a port, plain HTTP.
    public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
        public let host: String
        public let port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// The IPv4 addresses the host resolves to now, as a connection from it names its client (`getaddrinfo`,
        /// which may block on DNS: worker threads only); empty when it does not resolve.
        public func addresses() -> Set<String> {
            guard let resolved = try? ClientSocket.resolve(host, port: port) else { return [] }
            return Set(resolved.map(Socket.hostDescription))
        }

        /// `http://host[:port]` with at most a trailing `/` (a cluster member's base URL).
        public init(url: String) throws(URLError) {
            let (endpoint, target) = try Self.parse(url: url)
            guard target == "/" else { throw .unexpectedPath }
            self = endpoint
        }

        /// `http://host[:port][/path[?query]]`: the endpoint and the origin-form target (`/` when absent). Only plain
        /// HTTP: an `https` URL is refused as `.tlsNotSupported`, since this client speaks no TLS.
        public static func parse(url: String) throws(URLError) -> (endpoint: Endpoint, target: String) {
            guard let schemeEnd = url.range(of: "://") else { throw .missingScheme }
            let scheme = url[..<schemeEnd.lowerBound].lowercased()
            if scheme == "https" { throw .tlsNotSupported }
            guard scheme == "http" else { throw .unsupportedScheme(scheme) }
            let rest = url[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            var target = String(rest[authorityEnd...])
            if target.contains("#") { throw .invalidTarget }
            if target.isEmpty { target = "/" }
            if target.hasPrefix("?") { target = "/" + target }
            guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidTarget }
            var host = Substring(authority)
            var port = 80
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                let digits = authority[authority.index(after: colon)...]
                guard !digits.isEmpty, digits.count <= 5, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(digits),
                    (1...65535).contains(value)
                else { throw .invalidPort }
                port = value
            }
            guard isValidHost(host) else { throw .invalidHost }
            return (Endpoint(host: String(host).lowercased(), port: port), target)
        }

        /// A DNS name or dotted IPv4 address: letters, digits, `-` and `.`, no user info, no IPv6 literal.
        static func isValidHost(_ host: Substring) -> Bool {
            guard !host.isEmpty, host.utf8.count <= 253 else { return false }
            return host.utf8.allSatisfy { byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 45 || byte == 46
            } && !host.hasPrefix(".") && !host.hasPrefix("-")
        }

        public var description: String { "http://\(host):\(port)" }

        /// The `Host` header value (RFC 9110 §7.2): the port only when it is not the default.
        var hostHeader: String { port == 80 ? host : "\(host):\(port)" }
    }

    /// Why a URL is not one this client can reach.
    public enum URLError: Error, Equatable, Sendable {
        case missingScheme
        case unsupportedScheme(String)
        /// `https`: this client speaks plain HTTP only.
        case tlsNotSupported
        case invalidHost
        case invalidPort
        case invalidTarget
        /// A base URL was expected, and this one has a path.
        case unexpectedPath

        /// A sentence for a configuration error message.
        public var message: String {
            switch self {
            case .missingScheme: return "must start with http://"
            case .unsupportedScheme(let scheme): return "scheme '\(scheme)' is not supported (only http://)"
            case .tlsNotSupported: return "https is not supported: specd's client speaks plain HTTP only (terminate TLS in a local proxy)"
            case .invalidHost: return "the host must be a DNS name or an IPv4 address"
            case .invalidPort: return "the port must be a number from 1 to 65535"
            case .invalidTarget: return "the path must be printable ASCII without a fragment"
            case .unexpectedPath: return "must be a base URL without a path"
            }
        }
    }
}
