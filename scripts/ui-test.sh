#!/usr/bin/env bash
# Browser tests: the dashboard at /ui and a web app on another origin, in headless Chromium (Debian's package)
# driven by Playwright's Python package (in a venv, pointed at the system Chromium: no browser download), against the
# real daemon on a free loopback port with tokens and cors.origins set to the second origin (scripts/ui_test.py runs
# it, and restarts it once to drop every stream). Screenshots and the daemon's log go to the directory given as $1
# (CI passes its log directory), default .build-ci/ui.
set -euo pipefail
cd "$(dirname "$0")/.."
ARTIFACTS=$(mkdir -p "${1:-.build-ci/ui}" && cd "${1:-.build-ci/ui}" && pwd)

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing chromium from apt" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
VENV=${VENV_UI:-.venv-ui}
[ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import playwright.sync_api' 2>/dev/null \
  || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "playwright==1.65.2"; }

swift build --product specd >/dev/null
BIN=$(swift build --show-bin-path)/specd
source scripts/lib.sh
ADMIN=ui-admin-token-0123456789
APP=ui-webapp-token-0123456789
APP_PORT=$(free_port)
cat > "$WORK/rules.json" <<JSON
{"flags": {"power-user": {"description": "Two app starts make a power user.", "when": {"donations": {"event": "appStarted", "gte": 2}}}}}
JSON
cat > "$WORK/specd.json" <<JSON
{"tokens": [{"name": "dashboard", "secret": "$ADMIN", "scopes": ["admin", "evaluate", "write"]},
            {"name": "webapp", "secret": "$APP", "scopes": ["evaluate"]}],
 "cors": {"origins": ["http://127.0.0.1:$APP_PORT"]}}
JSON
"$VENV/bin/python" scripts/ui_test.py "$BIN" "$WORK/specd.json" "$WORK/rules.json" "$WORK/data" "$ADMIN" "$APP" "$APP_PORT" "$ARTIFACTS"
