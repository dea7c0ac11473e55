#!/usr/bin/env bash
# The release build's execution profile (bench/specd.profdata) is read only when it is whole: a profile the compiler
# cannot read fails every release build, the README's `swift run -c release specd` first. For each copy of the
# profile below, this evaluates Package.swift in a scratch package holding that copy (no manifest cache, so each is
# evaluated afresh) and checks whether the release flags name it; and it asks the compiler to read the same copy,
# so that every copy left out is one the compiler refuses and the whole one is one it reads.
#   whole, and whole with SPECD_PGO=off         named / left out
#   cut short at five places, emptied, a Git LFS pointer, a file of zeros, absent      left out
# and that SwiftPM's cached reading of the manifest is purged by `swift package purge-cache`.
# Prints 'profile-guard: N passed, N failed' last.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
PROFILE=bench/specd.profdata
[ -s "$PROFILE" ] || {
  echo "profile-guard: $PROFILE is missing" >&2
  exit 1
}
size=$(wc -c <"$PROFILE")
passed=0
failed=0
check() {
  if [ "$2" == "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: expected '$2', got '$3'"; fi
}

# named COPY [ENV...]: "named" when Package.swift adds COPY to the release flags, else "left out".
named() {
  local copy=$1 package
  shift
  package=$(mktemp -d "$WORK/package.XXXX")
  cp Package.swift "$package/"
  mkdir -p "$package/bench"
  [ "$copy" = absent ] || cp "$copy" "$package/bench/specd.profdata"
  # The whole description first: `grep -q` closing the pipe early failed the pipeline.
  if [[ $(env "$@" swift package dump-package --manifest-cache none --package-path "$package" 2>/dev/null) == *-ir-profile-use=* ]]; then
    echo named
  else
    echo "left out"
  fi
}

# compiler COPY: "reads" when swiftc optimizes a one-line program with COPY as its profile, "refuses" when it reports
# an error. By the output, not the exit status: swiftc reports "error reading profile" and still exits 0 (Swift
# 6.3), where `swift build` fails on the error.
echo 'print("profile")' >"$WORK/main.swift"
compiler() {
  local output
  output=$(swiftc -O -Xfrontend -ir-profile-use="$1" "$WORK/main.swift" -o "$WORK/main" 2>&1 || echo "error: exit status $?")
  if [[ $output == *error* ]]; then echo refuses; else echo reads; fi
}

# The offset of the profile's last section (format 12, header words at 32..71): where a copy cut there ends.
last_section_offset() {
  python3 - "$PROFILE" <<'PY'
import struct, sys
print(max(struct.unpack("<5Q", open(sys.argv[1], "rb").read(72)[32:72])))
PY
}

make_copy() { # NAME: a file under $WORK holding that copy of the profile
  local path="$WORK/$1.profdata"
  case $1 in
    whole) cp "$PROFILE" "$path" ;;
    cut-header) head -c 40 "$PROFILE" >"$path" ;;
    cut-records) head -c $((size / 3)) "$PROFILE" >"$path" ;;
    cut-table) head -c $((size - size / 20)) "$PROFILE" >"$path" ;;
    cut-last-section) head -c "$(last_section_offset)" "$PROFILE" >"$path" ;;
    cut-one-byte) head -c $((size - 1)) "$PROFILE" >"$path" ;;
    empty) : >"$path" ;;
    lfs-pointer) printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%064d\nsize %d\n' 0 "$size" >"$path" ;;
    zeros) head -c "$size" /dev/zero >"$path" ;;
  esac
  echo "$path"
}

check "whole profile is named" named "$(named "$(make_copy whole)")"
check "whole profile is read by the compiler" reads "$(compiler "$WORK/whole.profdata")"
check "SPECD_PGO=off leaves the whole profile out" "left out" "$(named "$WORK/whole.profdata" SPECD_PGO=off)"
check "absent profile is left out" "left out" "$(named absent)"
for damage in cut-header cut-records cut-table cut-last-section empty lfs-pointer zeros; do
  copy=$(make_copy "$damage")
  check "$damage profile is left out" "left out" "$(named "$copy")"
  check "$damage profile is refused by the compiler" refuses "$(compiler "$copy")"
done
# Cut by its last byte only, the last section still starts inside the file: its end is what tells.
copy=$(make_copy cut-one-byte)
check "cut-one-byte profile is left out" "left out" "$(named "$copy")"
check "cut-one-byte profile is refused by the compiler" refuses "$(compiler "$copy")"

# SwiftPM keeps its reading of a manifest, keyed by the manifest's text and not by the profile: a checkout whose
# profile was damaged when first read keeps leaving the whole one out, until `swift package purge-cache` (which
# scripts/pgo-profile.sh runs after writing one). Pinned, with the remedy, on a scratch package of its own.
package=$(mktemp -d "$WORK/package.XXXX")
cp Package.swift "$package/"
mkdir -p "$package/bench"
cached() { [[ $(swift package dump-package --package-path "$package" 2>/dev/null) == *-ir-profile-use=* ]] && echo named || echo "left out"; }
cp "$WORK/empty.profdata" "$package/bench/specd.profdata"
check "a damaged profile is left out (cached reading)" "left out" "$(cached)"
cp "$PROFILE" "$package/bench/specd.profdata"
check "the whole profile that replaced it is still left out" "left out" "$(cached)"
swift package purge-cache >/dev/null 2>&1
check "after purge-cache the whole profile is named" named "$(cached)"

echo "profile-guard: $passed passed, $failed failed"
[ "$failed" = 0 ]
