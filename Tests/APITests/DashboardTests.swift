import Foundation
import Testing

@testable import API

/// `GET /ui`: served without a token, locked down by its Content-Security-Policy, and the embedded copy is Sources/API/Dashboard/.
@Suite struct DashboardTests {
    static func source(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/API/Dashboard/\(name)")
            .standardized
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test(arguments: [("index.html", DashboardAssets.html), ("app.js", DashboardAssets.script), ("app.css", DashboardAssets.style)])
    func embeddedCopy_isTheSourceInUI(name: String, embedded: String) throws {
        #expect(
            embedded.trimmingCharacters(in: .whitespacesAndNewlines) == (try Self.source(name)).trimmingCharacters(in: .whitespacesAndNewlines),
            "run scripts/embed-dashboard.sh")
    }

    @Test(arguments: [
        ("/ui", "text/html; charset=utf-8"), ("/ui/app.js", "text/javascript; charset=utf-8"), ("/ui/app.css", "text/css; charset=utf-8")
    ])
    func assets_areServedWithoutAToken_underARestrictivePolicy(path: String, type: String) throws {
        let api = try APIHarness(tokens: [Token(name: "ops", secret: "admin-secret-0123456789ab", scopes: [.admin])])
        defer { api.stop() }
        let reply = try api.call("GET", path)
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == type)
        let policy = try #require(reply.header("Content-Security-Policy"))
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe"))
        #expect(reply.header("X-Content-Type-Options") == "nosniff")
        let tag = try #require(reply.header("ETag"))
        #expect(try api.call("GET", path, headers: ["If-None-Match": tag]).status == 304)
    }

    /// Under `script-src 'self'` and `style-src 'self'` an inline script or style would not run: the page must
    /// hold none. And the script never turns text into markup, so a user id like `<img onerror=…>` stays text.
    @Test func page_holdsNoInlineCode_andTheScriptNeverParsesMarkup() throws {
        let html = try Self.source("index.html")
        #expect(!html.contains("<script>") && !html.contains("<style") && !html.contains("style="))
        #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "no inline event handler attributes")
        let script = try Self.source("app.js")
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setTimeout('"] {
            #expect(!script.contains(sink), "\(sink)")
        }
        // The token goes in a header, never a URL.
        #expect(!script.contains("token=") && !script.contains("access_token"))
    }
}
