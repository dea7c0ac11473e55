"""Browser tests of the dashboard and of a web app on another origin, in headless Chromium driven by Playwright.

Run by scripts/ui-test.sh: argv = the specd binary, its config file and rules file, a data directory, the admin
token, the web-app token, the loopback port of the "other origin" static server (the one cors.origins lists), and
the directory screenshots go to. It runs the daemon itself (on a fixed loopback port, so it can restart it in place
to drop every stream). Prints 'ui: N passed, N failed' last and exits non-zero on any failure.
"""

import functools
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

from playwright.sync_api import sync_playwright

BINARY, CONFIG, RULES, DATA = sys.argv[1:5]
ADMIN_TOKEN, APP_TOKEN, APP_PORT, ARTIFACTS = sys.argv[5], sys.argv[6], int(sys.argv[7]), sys.argv[8]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


PORT = free_port()
BASE = f"http://127.0.0.1:{PORT}"


class Daemon:
    """The real specd on PORT; stop() is SIGTERM (streams end, a snapshot is written), start() comes back on the
    same port with the same data, so sequence numbers go on."""

    def __init__(self):
        self.process = None

    def start(self):
        log = open(os.path.join(ARTIFACTS, "specd.log"), "a", encoding="utf-8")
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", str(PORT), "--config", CONFIG, "--rules", RULES, "--data-dir", DATA, "--fsync", "never"],
            stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(BASE + "/healthz", timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("specd did not start: see specd.log")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=20)


DAEMON = Daemon()
PASSED = 0
FAILED = 0


def check(name, condition, detail=""):
    global PASSED, FAILED
    if condition:
        PASSED += 1
        print(f"ok   {name}")
    else:
        FAILED += 1
        print(f"FAIL {name} {detail}")


def donate(user, event="appStarted"):
    """A donation as a backend would send it: plain HTTP with the admin token."""
    path = f"/v1/users/{urllib.parse.quote(user, safe='')}/events/{event}"
    request = urllib.request.Request(BASE + path, data=b"{}", method="POST", headers={
        "Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("no chromium on PATH")


def within(page, expression, seconds):
    """Whether the page's expression becomes truthy within the given seconds; also how long it took. Polled from
    here: Playwright's in-page polling compiles a string, which the dashboard's CSP (no eval) rightly refuses."""
    started = time.monotonic()
    while True:
        if page.evaluate(expression):
            return True, time.monotonic() - started
        if time.monotonic() - started > seconds:
            return False, time.monotonic() - started
        time.sleep(0.02)


COUNT = "(u, e) => { const c = document.querySelector(`#donations tr[data-event='${e}'] .count`); return c && c.textContent; }"
FLAG = "(k) => { const c = document.querySelector(`#flags tr[data-key='${k}'] .value`); return c && c.textContent; }"


def dashboard(browser):
    console = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    requested = []
    page.on("request", lambda request: requested.append(request.url))

    donate("alice")  # count 1: the flag is still off
    response = page.goto(BASE + "/ui")
    check("GET /ui answers 200 without a token", response.status == 200, response.status)
    page.fill("#token", ADMIN_TOKEN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#app:not([hidden])", timeout=5000)
    check("the token is kept in sessionStorage", page.evaluate("sessionStorage.getItem('specd.token')") == ADMIN_TOKEN)
    ok, _ = within(page, "document.querySelector('#rules-phase') && document.querySelector('#rules-phase').textContent === 'loaded'", 5)
    check("rules show phase loaded", ok)
    ok, _ = within(page, "document.querySelector('#live-state').textContent === 'live'", 5)
    check("the live event stream is open", ok)

    page.fill("#user-id", "alice")
    page.click("#user-form button[type=submit]")
    ok, _ = within(page, f"({COUNT})('alice', 'appStarted') === '1' && ({FLAG})('power-user') === 'false'", 5)
    check("the inspector shows alice's count 1 and power-user false", ok)

    donate("alice")
    ok, seconds = within(page, f"({COUNT})('alice', 'appStarted') === '2' && ({FLAG})('power-user') === 'true'", 2)
    check("a donation made elsewhere shows its new count and flag change within 2 s", ok, f"{seconds:.2f} s")
    print(f"dashboard: donation to page update {seconds * 1000:.0f} ms")
    ok, _ = within(page, "Array.from(document.querySelectorAll('#events li.event-flag')).some(li => li.textContent.includes('power-user'))", 2)
    check("the live event view lists the flag event", ok)

    page.click("#flags tr[data-key='power-user'] button")
    ok, _ = within(page, "document.querySelector('#flags tr.explain:not([hidden]) ul.tree li')", 3)
    check("explain shows the evaluation tree", ok)
    ok, _ = within(page, "document.querySelector('#history li[data-seq]') || !document.querySelector('#history-note').hidden", 3)
    check("history shows a timeline or says it is not available", ok)

    os.makedirs(ARTIFACTS, exist_ok=True)
    page.screenshot(path=os.path.join(ARTIFACTS, "dashboard.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=os.path.join(ARTIFACTS, "dashboard-phone.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    check("on a phone-sized screen the page does not scroll sideways", width <= 390, width)
    page.set_viewport_size({"width": 1280, "height": 900})

    # A user id is client data: it must render as text, never as markup.
    hostile = "<img src=x onerror=window.__xss=1>"
    donate(hostile)
    page.fill("#user-id", hostile)
    page.click("#user-form button[type=submit]")
    ok, _ = within(page, f"document.querySelector('#user-name').textContent === {json.dumps(hostile)}", 3)
    check("a hostile user id renders as text", ok)
    page.wait_for_timeout(300)
    check("…and never runs", page.evaluate("window.__xss === undefined"))
    check("…nor becomes an element", page.evaluate("document.querySelectorAll('#app img').length") == 0)

    # A restart drops every stream: the page reconnects with fresh tickets (the spent ones would be refused),
    # resumes, and hears writes again.
    DAEMON.stop()
    ok, _ = within(page, "document.querySelector('#live-state').textContent !== 'live'", 5)
    check("a dropped stream is shown as not live", ok, page.text_content("#live-state"))
    DAEMON.start()
    ok, seconds = within(page, "document.querySelector('#live-state').textContent === 'live'", 10)
    check("…reconnects after a restart", ok, f"{seconds:.2f} s")
    page.wait_for_timeout(500)
    donate(hostile)
    ok, _ = within(page, f"({COUNT})('', 'appStarted') === '2'", 3)
    check("…and hears writes again", ok)

    check("no request URL carries the token", all(ADMIN_TOKEN not in url for url in requested))
    streams = [url for url in requested if "/stream" in url and "stream-tickets" not in url]
    tickets = [urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get("ticket", [""])[0] for url in streams]
    check("every stream URL carries a ticket of its own", len(streams) >= 5 and all(tickets) and len(set(tickets)) == len(tickets), streams)
    violations = [line for line in console if "Content Security Policy" in line or "Refused to" in line]
    check("the page runs under its Content-Security-Policy without a violation", not violations, violations)
    context.close()


APP_PAGE = """<!doctype html>
<meta charset="utf-8">
<title>another origin</title>
<p id="state">idle</p>
<ol id="log"></ol>
<script>
async function start(base, token, user) {
  const state = document.getElementById('state');
  // fetch with Authorization from another origin: the browser sends a CORS preflight first.
  const reply = await fetch(`${base}/v1/stream-tickets`, {
    method: 'POST', headers: {'Authorization': `Bearer ${token}`, 'Content-Type': 'application/json'},
    body: JSON.stringify({stream: `/v1/users/${encodeURIComponent(user)}/stream`}),
  });
  if (!reply.ok) { state.textContent = `ticket ${reply.status}`; return; }
  const etag = reply.headers.get('X-Request-Id');
  const {ticket} = await reply.json();
  const source = new EventSource(`${base}/v1/users/${encodeURIComponent(user)}/stream?ticket=${encodeURIComponent(ticket)}`);
  source.onopen = () => { state.textContent = 'open'; };
  source.onerror = () => { state.textContent = 'error'; };
  source.addEventListener('flag', (event) => {
    const item = document.createElement('li');
    item.textContent = event.data;
    document.getElementById('log').append(item);
  });
  return etag;
}
</script>
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def other_origin(browser):
    root = os.path.join(ARTIFACTS, "app-origin")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "app.html"), "w", encoding="utf-8") as file:
        file.write(APP_PAGE)
    handler = functools.partial(QuietHandler, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", APP_PORT), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{APP_PORT}/app.html")
        request_id = page.evaluate("([base, token]) => start(base, token, 'bob')", [BASE, APP_TOKEN])
        check("a page on another origin reads an exposed header (X-Request-Id)", bool(request_id), request_id)
        ok, _ = within(page, "document.getElementById('state').textContent === 'open'", 5)
        check("EventSource on another origin opens the user stream with a ticket", ok, page.text_content("#state"))
        donate("bob")
        donate("bob")
        ok, seconds = within(page, "Array.from(document.querySelectorAll('#log li')).some(li => li.textContent.includes('power-user'))", 2)
        check("…and sees the flag change", ok, f"{seconds:.2f} s")
        text = page.text_content("#log") or ""
        check("…with the new value", '"value":true' in text, text)
        page.screenshot(path=os.path.join(ARTIFACTS, "other-origin.png"))
        context.close()
    finally:
        server.shutdown()


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    DAEMON.start()
    try:
        browse()
    finally:
        DAEMON.stop()
    print(f"screenshots: {ARTIFACTS}")
    print(f"ui: {PASSED} passed, {FAILED} failed")
    sys.exit(1 if FAILED else 0)


def browse():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            dashboard(browser)
            other_origin(browser)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
