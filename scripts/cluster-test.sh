#!/usr/bin/env bash
# Cluster mode on one machine (docs/cluster.md): three replicas and nginx with deploy/nginx-sharding.conf (ports
# substituted) on loopback. Checks ownership on disk, the same answers whichever replica a request enters, the
# merged global stream, kill -9 of one replica (its users 503, the others unaffected), restart (everything
# acknowledged is back), and an offline reshard 3 -> 4. Ends with the forwarding overhead (p50/p99 of an OFREP call
# forwarded vs direct). Bounded: about a minute. Prints 'cluster: N passed, N failed' last.
# SPECD_BIN: a prebuilt specd (default: a debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nginx >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; }
if [ -z "${SPECD_BIN:-}" ]; then
  swift build --product specd >/dev/null
  SPECD_BIN="$(swift build --show-bin-path)/specd"
fi
exec timeout 600 python3 scripts/cluster_test.py "$SPECD_BIN" deploy/nginx-sharding.conf
