import HTTP
import Testing

@testable import API

@Suite struct CORSPolicyTests {
    @Test(arguments: [
        ("https://app.example", "https://app.example"),
        ("HTTPS://App.Example", "https://app.example"),
        ("https://app.example:443", "https://app.example"),
        ("http://localhost:80", "http://localhost"),
        ("http://localhost:3000", "http://localhost:3000"),
        ("https://app.example:80", "https://app.example:80"),
        ("http://127.0.0.1:8081", "http://127.0.0.1:8081"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("capacitor://localhost", "capacitor://localhost")
    ])
    func normalizedOrigin_isWhatABrowserSends(configured: String, expected: String) throws {
        #expect(try CORSPolicy.normalizedOrigin(configured) == expected)
    }

    @Test(arguments: [
        "app.example", "https://app.example/", "https://app.example/path", "https://app.example?x=1", "https://user@app.example",
        "https://", "://app.example", "1http://app.example", "https://app.example:0", "https://app.example:65536",
        "https://app.example:", "https://app.example:8o", "https://app example", "https://[::1", "https://[zz]:80", "*.example.com",
        "https://app.example:123456"
    ])
    func normalizedOrigin_refusesWhatIsNotSchemeHostPort(text: String) {
        #expect(throws: CORSPolicy.OriginError.self) { try CORSPolicy.normalizedOrigin(text) }
    }

    @Test func listing_wildcardMustStandAlone() throws {
        #expect(try CORSPolicy.listing(["*"]) == CORSPolicy(origins: .any))
        #expect(throws: CORSPolicy.OriginError.wildcardNotAlone) { try CORSPolicy.listing(["*", "https://app.example"]) }
        #expect(try CORSPolicy.listing(["https://a.example", "HTTPS://A.EXAMPLE:443"]) == CORSPolicy(origins: .listed(["https://a.example"])))
    }

    @Test func decide_listedOrigin_namesItAndVaries_unlistedGetsOnlyVary() throws {
        let policy = try CORSPolicy.listing(["https://app.example"])
        #expect(
            policy.decide(origin: "https://app.example")
                == .allowed(
                    [
                        "Access-Control-Allow-Origin": "https://app.example", "Vary": "Origin",
                        "Access-Control-Expose-Headers": "ETag, Retry-After, X-Request-Id"
                    ]))
        // Browsers send lowercase, but the header is compared without regard to case.
        #expect(policy.decide(origin: "https://APP.example").headers["Access-Control-Allow-Origin"] == "https://APP.example")
        #expect(policy.decide(origin: "https://evil.example") == .refused(["Vary": "Origin"]))
        #expect(policy.decide(origin: "https://app.example.evil") == .refused(["Vary": "Origin"]))
        #expect(policy.decide(origin: nil) == .refused(["Vary": "Origin"]))
    }

    @Test func decide_wildcard_neverAllowsCredentials() {
        let headers = CORSPolicy(origins: .any).decide(origin: "https://anyone.example").headers
        #expect(headers["Access-Control-Allow-Origin"] == "*")
        #expect(headers["Access-Control-Allow-Credentials"] == nil)
        #expect(headers["Vary"] == nil)
    }

    @Test func preflight_listsTheRouteMethodsAndTheHeadersAPageSends() {
        let answer = CORSPolicy(origins: .listed(["https://app.example"])).preflight(origin: "https://app.example", methods: ["POST", "GET"])
        #expect(answer.status == .noContent)
        #expect(answer.headers["Access-Control-Allow-Methods"] == "GET, HEAD, OPTIONS, POST")
        for header in ["Authorization", "Content-Type", "If-None-Match", "X-App-Version", "Last-Event-ID"] {
            #expect(answer.headers["Access-Control-Allow-Headers"]?.contains(header) == true, "\(header)")
        }
        #expect(answer.headers["Access-Control-Allow-Credentials"] == nil)
    }

    private func covers(_ policy: CORSPolicy, _ path: String) -> Bool {
        Array(path.utf8).withUnsafeBufferPointer { policy.covers($0) }
    }

    @Test func covers_aPathStartingWithAPrefix_only() {
        var policy = CORSPolicy(origins: .any, pathPrefixes: ["/ofrep/", "/v1/streams"])
        #expect(covers(policy, "/ofrep/v1/evaluate/flags/x"))
        #expect(covers(policy, "/ofrep/"))
        #expect(covers(policy, "/v1/streams?user=a"))
        #expect(!covers(policy, "/ofrep")) // shorter than the prefix
        #expect(!covers(policy, "/ofrep-v1/")) // differs in the prefix's last byte
        #expect(!covers(policy, "/v1/users/u/flags/k"))
        #expect(!covers(policy, ""))
        // Changed prefixes are the ones asked from then on.
        policy.pathPrefixes = ["/v1/"]
        #expect(covers(policy, "/v1/users/u/flags/k"))
        #expect(!covers(policy, "/ofrep/v1/evaluate/flags/x"))
        policy.pathPrefixes = nil
        #expect(covers(policy, "/anything"))
        #expect(covers(CORSPolicy(origins: .any), "/"))
        #expect(!covers(CORSPolicy(origins: .any, pathPrefixes: []), "/"))
    }

    /// Equal by what was set: the origins and the prefixes as text, whatever bytes `covers` keeps for them.
    @Test func equality_isByOriginsAndPrefixesAsText() {
        #expect(CORSPolicy(origins: .any, pathPrefixes: ["/caf\u{E9}"]) == CORSPolicy(origins: .any, pathPrefixes: ["/cafe\u{301}"]))
        #expect(CORSPolicy(origins: .any, pathPrefixes: ["/a/"]) != CORSPolicy(origins: .any, pathPrefixes: ["/b/"]))
        #expect(CORSPolicy(origins: .any, pathPrefixes: nil) != CORSPolicy(origins: .any, pathPrefixes: []))
        #expect(CORSPolicy(origins: .any) != CORSPolicy(origins: .listed(["https://app.example"])))
        var changed = CORSPolicy.openFeatureOnly
        changed.pathPrefixes = ["/ofrep/"]
        #expect(changed == .openFeatureOnly)
    }
}
