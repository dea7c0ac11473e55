#!/usr/bin/env bash
# Proves deploy/Containerfile's runtime stage without a container engine: builds specd with --static-swift-stdlib
# as the builder stage does, makes a bare Debian bookworm root with debootstrap plus tzdata and ca-certificates (what
# the runtime stage installs; cached under .build-ci/debian-root), copies the binary in, starts it inside the root
# (chroot; needs root) with an empty data directory, and checks that it serves and answers a flag. Bounded in time.
# Prints 'image-smoke: N passed, N failed' last.
# SMOKE_CONFIGURATION=release|debug (default release, as the image is built); SPECD_STATIC_BIN: a prebuilt static
# binary.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "image-smoke: needs root for chroot" >&2; exit 1; }
ROOT=.build-ci/debian-root
passed=0
failed=0
check() { if eval "$2"; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi; }

if [ ! -x "$ROOT/bin/sh" ]; then
  command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  rm -rf "$ROOT.tmp"
  mkdir -p .build-ci
  timeout 900 debootstrap --variant=minbase --include=tzdata,ca-certificates bookworm "$ROOT.tmp" http://deb.debian.org/debian >/dev/null
  mv "$ROOT.tmp" "$ROOT"
fi

if [ -z "${SPECD_STATIC_BIN:-}" ]; then
  configuration=${SMOKE_CONFIGURATION:-release}
  # shellcheck disable=SC2046 # the flags are words
  timeout 1800 nice -n 10 swift build -c "$configuration" --product specd --static-swift-stdlib $(cat scripts/static-link-flags) >/dev/null
  SPECD_STATIC_BIN="$(swift build -c "$configuration" --show-bin-path)/specd"
fi

# The binary needs nothing from the toolchain: only the C library and friends the bare root has.
missing=$(ldd "$SPECD_STATIC_BIN" | grep -E 'swift|Foundation|dispatch|not found' || true)
check "binary links no Swift runtime library" '[ -z "$missing" ]'

install -D -m 0755 "$SPECD_STATIC_BIN" "$ROOT/usr/local/bin/specd"
rm -rf "$ROOT/var/lib/specd" && mkdir -p "$ROOT/var/lib/specd"
check "the root has time zones (tzdata)" '[ -e "$ROOT/usr/share/zoneinfo/Europe/Paris" ]'
check "the root holds no Swift toolchain" '! ls "$ROOT/usr/lib/swift" >/dev/null 2>&1'

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp)
# The runtime stage's entry point, minus the config file (loopback needs no tokens), in the bare root: its own mount
# and PID namespaces with a fresh /proc, as a container runtime gives it (the Swift runtime reads the process's
# arguments from /proc/self/cmdline in a static binary).
unshare --mount --pid --fork --kill-child=SIGKILL --mount-proc="$ROOT/proc" \
  chroot "$ROOT" /usr/local/bin/specd serve --data-dir /var/lib/specd --port "$port" 2>"$log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
check "specd serves inside the bare root (readyz 200)" '[ "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$port/readyz")" = 200 ]'
answer=$(curl -s --max-time 5 -X POST "http://127.0.0.1:$port/ofrep/v1/evaluate/flags/promo-banner" -H 'Content-Type: application/json' \
  -d '{"context": {"targetingKey": "smoke-user"}}' || true)
echo "flag answer: $answer"
check "it answers a flag" 'grep -q "\"key\":\"promo-banner\"" <<<"$answer" && grep -q "\"value\"" <<<"$answer"'
zoned=$(curl -s --max-time 5 -X PATCH "http://127.0.0.1:$port/v1/users/smoke-user/context" -H 'Content-Type: application/json' \
  -d '{"ops": [{"op": "setTimeZone", "tz": "Europe/Paris"}]}' -o /dev/null -w '%{http_code}' || true)
unknown=$(curl -s --max-time 5 -X PATCH "http://127.0.0.1:$port/v1/users/smoke-user/context" -H 'Content-Type: application/json' \
  -d '{"ops": [{"op": "setTimeZone", "tz": "Europe/Nowhere"}]}' -o /dev/null -w '%{http_code}' || true)
check "zone lookup works inside the root (Europe/Paris accepted, Europe/Nowhere refused)" '[ "$zoned" = 200 ] && [ "${unknown:0:1}" = 4 ]'
# SIGTERM to specd itself (the namespace's first process, a child of unshare): it drains and takes its snapshot.
specd_pid=$(ps -o pid= --ppid "$pid" | tr -d ' ')
kill -TERM "$specd_pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
check "it stops cleanly and leaves its data in the root" 'ls "$ROOT/var/lib/specd" | grep -q "snapshot-\|segment-"'
echo "image-smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
