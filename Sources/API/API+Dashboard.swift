import HTTP
import HTTPServer

/// `GET /ui` (docs/api.md, "Dashboard"): one page, its script and its style, embedded in the binary from `ui/` by
/// scripts/embed-dashboard.sh. The page holds no secret, so it is served without a token; everything it fetches
/// needs one (an admin token with the evaluate scope, entered once and kept in the tab's sessionStorage).
extension API {
    func registerDashboard(in router: inout Router) {
        let page = Self.asset(DashboardAssets.html, type: "text/html; charset=utf-8")
        let script = Self.asset(DashboardAssets.script, type: "text/javascript; charset=utf-8")
        let style = Self.asset(DashboardAssets.style, type: "text/css; charset=utf-8")
        router.add("GET", "/ui", sync: { request throws(APIError) in ETag.respond(request, body: page.body, headers: page.headers) })
        router.add("GET", "/ui/app.js", sync: { request throws(APIError) in ETag.respond(request, body: script.body, headers: script.headers) })
        router.add("GET", "/ui/app.css", sync: { request throws(APIError) in ETag.respond(request, body: style.body, headers: style.headers) })
    }

    /// Scripts and styles come from this origin's files only: no inline script or style, no eval, no framing,
    /// no form posting anywhere, so text from the server (user ids, flag keys) can never run even if a rendering
    /// bug let it into the markup. `connect-src 'self'` covers fetch and EventSource.
    static let dashboardSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    private static func asset(_ text: String, type: String) -> (body: [UInt8], headers: HTTPHeaders) {
        let headers: HTTPHeaders = [
            "Content-Type": type, "Content-Security-Policy": dashboardSecurityPolicy, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY", "Cache-Control": "no-cache"
        ]
        return (Array(text.utf8), headers)
    }
}
