#!/usr/bin/env bash
# Store benchmark with a same-run reference: Redis 7 (apt) on a loopback port with appendonly + appendfsync always.
#   - durable writes/s: redis-benchmark -t incr -c 32 vs specd-bench store (32 writer threads, fsync=always)
#   - memory per user: 1 M typical contexts as Redis hashes (INFO memory) vs specd's in-memory contexts
#   - cold start: `specd serve` on 1 M typical users (a snapshot and 100 000 records after it) until /readyz answers
#     (goal: 2 s; scripts/bench.sh sets it beside Redis loading the same users)
#   SPECD_BENCH_USERS=1000000 SPECD_BENCH_SECONDS=5 REDIS_REQUESTS=200000 scripts/bench-store.sh
set -euo pipefail
cd "$(dirname "$0")/.."

USERS=${SPECD_BENCH_USERS:-1000000}
REQUESTS=${REDIS_REQUESTS:-200000}
export SPECD_BENCH_USERS=$USERS

if ! command -v redis-server >/dev/null 2>&1; then
  echo "installing redis-server from apt" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
swift build -c release --product specd-bench >/dev/null
BENCH=$(swift build -c release --show-bin-path)/specd-bench

source scripts/lib.sh
PORT=$(free_port)
redis-server --bind 127.0.0.1 --port "$PORT" --dir "$WORK" --appendonly yes --appendfsync always --save "" \
  --logfile "$WORK/redis.log" >/dev/null &
PIDS+=($!)
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done

echo "== redis: durable INCR, -c 32, $REQUESTS requests (appendfsync always)"
redis_rps=$(timeout 300 redis-benchmark -p "$PORT" -t incr -c 32 -n "$REQUESTS" --csv | awk -F'","' '/INCR/ {print $2}')
echo "  redis INCR: $redis_rps requests/s"

echo "== redis: $USERS typical contexts as hashes"
redis-cli -p "$PORT" config set appendonly no >/dev/null
redis-cli -p "$PORT" flushall >/dev/null
before=$(redis-cli -p "$PORT" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')
python3 scripts/redis_users.py "$USERS" | redis-cli -p "$PORT" --pipe >/dev/null
after=$(redis-cli -p "$PORT" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')
redis_bytes=$(( (after - before) / USERS ))
echo "  redis: $redis_bytes bytes per user (used_memory growth)"

echo "== specd"
out=$(timeout 600 "$BENCH" store)
echo "$out"
specd_always=$(awk '/fsync=always/ {print $4}' <<<"$out")
specd_bytes=$(awk '/bytes per user/ {print $4}' <<<"$out")
echo "== ratios (same run)"
awk -v s="$specd_always" -v r="$redis_rps" 'BEGIN {printf "  durable writes: specd/redis = %.2f\n", s / r}'
awk -v s="$specd_bytes" -v r="$redis_bytes" 'BEGIN {printf "  bytes per user: specd/redis = %.2f\n", s / r}'

echo "== cold start: $USERS users in a snapshot, 100 000 records after it, until /readyz"
swift build -c release --product specd >/dev/null
SPECD=$(swift build -c release --show-bin-path)/specd
"$BENCH" seed-data "$WORK/cold" "$USERS" 100000
for round in 1 2; do
  read -r seconds _ <<<"$(cold_start "$SPECD" "$WORK/cold")"
  echo "  cold start $round: $seconds s"
done
