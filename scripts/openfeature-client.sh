#!/usr/bin/env bash
# The real OpenFeature Python SDK with its OFREP provider (PyPI, in a venv) against a started specd with tokens.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV_OF:-.venv-openfeature}
[ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import openfeature.contrib.provider.ofrep' 2>/dev/null \
  || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "openfeature-sdk==0.10.0" "openfeature-provider-ofrep==0.3.0"; }
swift build --product specd >/dev/null
BIN=$(swift build --show-bin-path)/specd
source scripts/lib.sh
TOKEN=of-check-token-0123456789
# The track check writes: a second token with the write scope (the first, evaluate only, must be refused).
WRITE_TOKEN=of-track-token-0123456789
cat > "$WORK/specd.json" <<JSON
{"tokens": [{"name": "of-check", "secret": "$TOKEN", "scopes": ["evaluate"]},
            {"name": "of-track", "secret": "$WRITE_TOKEN", "scopes": ["evaluate", "write"]}]}
JSON
start_specd openfeature "$BIN" --config "$WORK/specd.json" --rules config/openfeature-check.json --fsync never
PORT=$(cat "$WORK/openfeature.port")
"$VENV/bin/python" scripts/openfeature_client_check.py "http://127.0.0.1:$PORT" "$TOKEN" "$WRITE_TOKEN"
