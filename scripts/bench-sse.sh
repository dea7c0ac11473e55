#!/usr/bin/env bash
# SSE delivery benchmark: N subscribers (1 000 and 10 000), each on its own user or all on one, M changes; delivery
# latency p50/p99 and events/s for specd and, in the same run, nginx + nchan publishing the same payloads to the
# same number of EventSource subscribers. Loopback only; every wait bounded.
# specd and nginx run pinned to CPU 0, the load generator to CPU 1 (PIN=0 to turn it off; SERVER_CPU / LOAD_CPU to
# move them). SPECD_BIN and SPECD_BENCH_BIN name prebuilt binaries (server and load generator) to use instead of
# building this checkout; when both are set nothing is built.
#   SUBSCRIBERS="1000 10000" CHANGES=20 MODES="one own" ROUNDS=1 READERS=1 scripts/bench-sse.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SUBSCRIBERS=${SUBSCRIBERS:-"1000 10000"}
CHANGES=${CHANGES:-20}
MODES=${MODES:-"one own"}
ROUNDS=${ROUNDS:-1}
READERS=${READERS:-1}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
source scripts/lib.sh
if ! command -v nginx >/dev/null 2>&1 || [ ! -e /usr/lib/nginx/modules/ngx_nchan_module.so ]; then
  echo "installing nginx and libnginx-mod-nchan from apt" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light libnginx-mod-nchan >/dev/null
fi

pin_cores

if [ -n "${SPECD_BIN:-}" ]; then
  BIN=$SPECD_BIN
else
  swift build -c release --product specd >/dev/null
  BIN=$(swift build -c release --show-bin-path)/specd
fi
if [ -n "${SPECD_BENCH_BIN:-}" ]; then
  LOAD=$SPECD_BENCH_BIN
else
  swift build -c release --product specd-bench >/dev/null
  LOAD=$(swift build -c release --show-bin-path)/specd-bench
fi
start_specd sse "$BIN" --rules bench/sse-rules.json --fsync interval --log-level warn --max-connections 30000 \
  --max-connections-per-client 30000
SPECD_PORT=$(cat "$WORK/sse.port")

NCHAN_PORT=$(free_port)
mkdir -p "$WORK/nchan"
cat > "$WORK/nchan/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_nchan_module.so;
worker_processes 2;
worker_rlimit_nofile 65536;
pid $WORK/nchan/nginx.pid;
error_log $WORK/nchan/error.log warn;
events { worker_connections 30000; }
http {
  access_log off;
  server {
    listen 127.0.0.1:$NCHAN_PORT;
    location = /sub { nchan_subscriber eventsource; nchan_channel_id \$arg_id; }
    location = /pub { nchan_publisher; nchan_channel_id \$arg_id; nchan_message_buffer_length 100; }
  }
}
CONF
"${SERVER_PIN[@]}" nginx -c "$WORK/nchan/nginx.conf" -g 'daemon off;' >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5

printf '%-6s %-5s %-8s %13s %9s %9s %9s %10s\n' target mode subs delivered p50_ms p99_ms max_ms events/s
for n in $SUBSCRIBERS; do
  for mode in $MODES; do
    for round in $(seq "$ROUNDS"); do
    m=$CHANGES
    [ "$mode" = own ] && m=$n
    for target in nchan specd; do
      port=$SPECD_PORT
      [ "$target" = nchan ] && port=$NCHAN_PORT
      result=$(timeout 180 "${LOAD_PIN[@]}" "$LOAD" sse-load "$target" --port "$port" --subscribers "$n" --changes "$m" --mode "$mode" --readers "$READERS" || true)
      echo "$result" >> "$WORK/results.jsonl"
      python3 - "$result" <<'PY'
import json, sys
try:
    r = json.loads(sys.argv[1])
except ValueError:
    print("(no result)", sys.argv[1][:200]); sys.exit(0)
print("%-6s %-5s %-8s %13s %9s %9s %9s %10s" % (r["target"], r.get("mode", "?"), r.get("subscribers", "?"),
      "%s/%s" % (r["delivered"], r["expected"]), r.get("p50_ms", "-"), r.get("p99_ms", "-"), r.get("max_ms", "-"),
      r.get("events_per_s", "-")))
PY
    done
    done
  done
done

# Medians over the rounds, per configuration, with specd's p99 as a ratio of nchan's from the same run.
python3 - "$WORK/results.jsonl" <<'PY'
import json, statistics, sys
rows = []
for line in open(sys.argv[1]):
    try:
        rows.append(json.loads(line))
    except ValueError:
        pass
print("\nmedians over rounds")
print("%-5s %-8s %-7s %9s %9s %10s %15s" % ("mode", "subs", "target", "p50_ms", "p99_ms", "events/s", "p99 vs nchan"))
for key in sorted({(r.get("mode"), r.get("subscribers")) for r in rows if "p99_ms" in r}, key=str):
    medians = {}
    for target in ("nchan", "specd"):
        sel = [r for r in rows if (r.get("mode"), r.get("subscribers")) == key and r["target"] == target and "p99_ms" in r]
        if sel:
            medians[target] = [statistics.median(r[f] for r in sel) for f in ("p50_ms", "p99_ms", "events_per_s")]
    for target, (p50, p99, eps) in medians.items():
        ratio = "%.2fx" % (p99 / medians["nchan"][1]) if target == "specd" and "nchan" in medians else ""
        print("%-5s %-8s %-7s %9.3f %9.3f %10.0f %15s" % (key[0], key[1], target, p50, p99, eps, ratio))
PY
