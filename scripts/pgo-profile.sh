#!/usr/bin/env bash
# Regenerates bench/specd.profdata, the execution profile release builds are optimized with (Package.swift,
# "Profile-guided optimization"). Builds an instrumented specd apart from the usual build (.build-pgo), runs it on
# loopback under the benchmark rows' loads, and merges what it counted:
#   durable donations (--fsync always)       POST /v1/users/{u}/events/appStarted, 32 connections
#   fast donations (--fsync never)           the same
#   flag reads                               GET /v1/users/{u}/flags/promo-banner
#   OpenFeature evaluations                  POST /ofrep/v1/evaluate/flags/promo-banner
#   event streams                            SSE_SUBSCRIBERS (2 000) streams on one user, then each on its own,
#                                            every change a segment write that flips a flag (bench/sse-rules.json)
# Each load runs LOAD_SECONDS (4), bounded by wrk's own duration. Run it after a change to a hot path: a function
# that changed since the profile was made builds as it would without one (the compiler matches each function by a
# hash of its shape), so a stale profile costs speed, never correctness. Needs wrk (installed from apt if missing).
#   [LOAD_SECONDS=4] [SSE_SUBSCRIBERS=2000] scripts/pgo-profile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_wrk_nginx
LOAD_SECONDS=${LOAD_SECONDS:-4}
SSE_SUBSCRIBERS=${SSE_SUBSCRIBERS:-2000}
PROFILE=bench/specd.profdata

TOOLCHAIN=$(dirname "$(readlink -f "$(command -v swiftc)")")
PROFDATA=$TOOLCHAIN/llvm-profdata
RUNTIME=$TOOLCHAIN/../lib/swift/clang/lib/linux/libclang_rt.profile-$(uname -m).a
for tool in "$PROFDATA" "$RUNTIME"; do
  [ -e "$tool" ] || {
    echo "pgo-profile: $tool is missing from the Swift toolchain" >&2
    exit 1
  }
done

# The instrumented build: counters in every function, written at exit to LLVM_PROFILE_FILE. SPECD_PGO=off keeps
# Package.swift from optimizing this build with the profile being replaced; the manifest is evaluated afresh
# (no cache), so the setting is seen.
build=(swift build -c release --product specd --scratch-path .build-pgo --manifest-cache none)
instrument=(-Xswiftc -Xfrontend -Xswiftc -ir-profile-generate=default.profraw -Xlinker "$RUNTIME" -Xlinker -u__llvm_profile_runtime)
echo "building an instrumented specd in .build-pgo" >&2
SPECD_PGO=off "${build[@]}" "${instrument[@]}" >"$WORK/build.log" 2>&1 || {
  tail -30 "$WORK/build.log" >&2
  exit 1
}
BIN=$(SPECD_PGO=off "${build[@]}" --show-bin-path)/specd
# The streams' load generator, from the same build (its modules are the daemon's); its own counts are discarded.
SPECD_PGO=off swift build -c release --product specd-bench --scratch-path .build-pgo --manifest-cache none "${instrument[@]}" >"$WORK/build-bench.log" 2>&1 || {
  tail -30 "$WORK/build-bench.log" >&2
  exit 1
}
LOADER=$(dirname "$BIN")/specd-bench

# The machine must be quiet while the loads run: the profile counts which branches ran, and on a contended CPU the
# loop's rounds, polls and gathers take other branches than they do in the pinned benchmarks. A profile made while
# another job (a test suite) kept the machine about half busy built a daemon whose user CPU a cached read was some
# 5 % above, and wrk's p99 some 5 % above, the same code's built with a profile made on the quiet machine (each
# measured against the same earlier build, alternated runs of scripts/bench-ab.sh in both orders). Sampled over one
# second; PGO_BUSY_OK=1 profiles anyway.
busy=$(busy_percent)
if [ "$busy" -gt 20 ] && [ "${PGO_BUSY_OK:-0}" != 1 ]; then
  echo "pgo-profile: the machine is ${busy} % busy with other work; a profile made now would lay the code out for a" >&2
  echo "contended CPU. Stop that work and run again, or set PGO_BUSY_OK=1 to profile anyway." >&2
  exit 1
fi

mkdir -p "$WORK/raw"
# Raised before the daemons start, which inherit it: the streams hold a descriptor each.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
export LLVM_PROFILE_FILE=$WORK/raw/specd-%p.profraw
start_specd always "$BIN" --fsync always --log-level warn
ALWAYS_PID=${PIDS[-1]}
start_specd never "$BIN" --fsync never --log-level warn
NEVER_PID=${PIDS[-1]}
start_specd sse "$BIN" --rules bench/sse-rules.json --fsync interval --log-level warn --max-connections 30000 \
  --max-connections-per-client 30000
SSE_PID=${PIDS[-1]}
unset LLVM_PROFILE_FILE

load() {
  local port=$1 script=$2
  timeout $((LOAD_SECONDS + 30)) wrk -t1 -c32 -d"${LOAD_SECONDS}s" -s "$script" "http://127.0.0.1:$port" | awk '/Requests\/sec/ {print "  " $2 " req/s"}' >&2
}
echo "training: durable donations, fast donations, flag reads, OpenFeature evaluations, event streams" >&2
load "$(cat "$WORK/always.port")" bench/wrk/users-donate.lua
load "$(cat "$WORK/never.port")" bench/wrk/users-donate.lua
load "$(cat "$WORK/never.port")" bench/wrk/users-get.lua
OFREP_FLAG=promo-banner load "$(cat "$WORK/never.port")" bench/wrk/ofrep-post.lua
for mode in one own; do
  changes=20
  [ "$mode" = own ] && changes=$SSE_SUBSCRIBERS
  LLVM_PROFILE_FILE=$WORK/loader-%p.profraw timeout 120 "$LOADER" sse-load specd --port "$(cat "$WORK/sse.port")" \
    --subscribers "$SSE_SUBSCRIBERS" --changes "$changes" --mode "$mode" |
    python3 -c 'import json, sys; r = json.load(sys.stdin); print("  streams, %s user: %s/%s delivered" % (sys.argv[1], r.get("delivered"), r.get("expected")))' "$mode" >&2 || {
    echo "pgo-profile: the streams' load ($mode user) did not deliver every event; no profile written" >&2
    exit 1
  }
done

# A clean stop writes the counters; a kill would lose them.
for pid in "$ALWAYS_PID" "$NEVER_PID" "$SSE_PID"; do kill -TERM "$pid"; done
for pid in "$ALWAYS_PID" "$NEVER_PID" "$SSE_PID"; do wait "$pid" 2>/dev/null || true; done
ls "$WORK"/raw/*.profraw >/dev/null 2>&1 || {
  echo "pgo-profile: the instrumented daemon wrote no profile" >&2
  exit 1
}
# Sparse: functions the loads never ran are left out (a fifth of the size), and build as they would without one.
"$PROFDATA" merge -sparse -o "$PROFILE" "$WORK"/raw/*.profraw
echo "wrote $PROFILE ($(wc -c <"$PROFILE") bytes, $("$PROFDATA" show "$PROFILE" | awk -F': ' '/Total functions/ {print $2}') functions)" >&2
# The compile commands name the profile's path, not its contents: a build must start over to read the new one.
# SwiftPM also keeps its reading of Package.swift, which decides whether the profile is named (it must be whole),
# keyed by the manifest's text, not the profile's: one made while the profile was missing or damaged would leave
# the new one out. Purged (SwiftPM's caches of this user, rebuilt as needed).
swift package clean
swift package purge-cache
echo "cleaned .build and SwiftPM's caches: the next release build compiles with the new profile" >&2
