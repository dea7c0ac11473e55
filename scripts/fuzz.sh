#!/usr/bin/env bash
# Fuzzes specd with libFuzzer (swiftc -sanitize=fuzzer,address): builds the targets in Tests/Fuzz, replays every
# seed (Tests/Fuzz/Corpus/<target>) and saved crash (Tests/Fuzz/Crashes/<target>), then fuzzes each target for
# SECONDS (default 60). Prints each target's executions and exec/s and ends with 'fuzz: N passed, M failed'.
#
#   scripts/fuzz.sh [SECONDS]        FUZZ_TARGETS="json reducer" to run some; FUZZ_JOBS unused (one at a time)
#
# New corpus entries go to .build/fuzz/corpus/<target> (kept between runs, never committed); crashing inputs to
# .build/fuzz/artifacts. Save every crash as Tests/Fuzz/Crashes/<target>/<descriptive-name> with its fix and a
# named regression test in the module's tests: replayed on every run, a crash file fails the run until it is fixed.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
OUT=.build/fuzz
TARGETS=${FUZZ_TARGETS:-"http json rules-compiler evaluation reducer store-decoders scenario"}
mkdir -p "$OUT/artifacts" "$OUT/store-src" "$OUT/engine-src"
export SWIFT_BACKTRACE=enable=no             # the Swift backtracer can hang under ASan; ASan prints the stack
# malloc_context_size=0: ASan records no stack per allocation (a quarter of the structure-aware targets' time);
# detection is unchanged, only reports lack allocation stacks: rerun a crash with ASAN_OPTIONS=handle_sigill=1 to see them.
export ASAN_OPTIONS=${ASAN_OPTIONS:-handle_sigill=1:handle_abort=1:detect_leaks=0:malloc_context_size=0}
FLAGS=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -use-ld=lld)
SUPPORT=(Tests/Fuzz/Support/FuzzInput.swift Tests/Fuzz/Support/RuleGenerator.swift Tests/Fuzz/Support/ContextGenerator.swift)

# Rebuilds a binary only when a source is newer than it.
build() {
  local binary=$1; shift
  local newest
  # The C targets' objects count as sources too: a change to their C relinks the binaries.
  newest=$(ls -t "$@" "$OUT"/ccrc32c/CCRC32C.o "$OUT"/clinux/CLinux.o 2>/dev/null | head -1)
  if [ -x "$binary" ] && [ "$binary" -nt "$newest" ]; then return 0; fi
  echo "build $(basename "$binary")"
  swiftc "${FLAGS[@]}" "${C_MODULES[@]}" -module-name "Fuzz$(basename "$binary" | tr -d -)" "$@" -o "$binary" 2>&1 | grep -v '^$' || true
  [ -x "$binary" ] && [ "$binary" -nt "$newest" ]
}

# The store's checksum reaches the CPU's CRC-32C instruction through a small C target (Sources/CCRC32C): compiled
# here and handed to swiftc as a module with its object.
mkdir -p "$OUT/ccrc32c"
printf 'module CCRC32C {\n  header "%s/Sources/CCRC32C/include/CCRC32C.h"\n  export *\n}\n' "$PWD" > "$OUT/ccrc32c/module.modulemap"
if [ ! -f "$OUT/ccrc32c/CCRC32C.o" ] || [ Sources/CCRC32C/CCRC32C.c -nt "$OUT/ccrc32c/CCRC32C.o" ]; then
  clang -O2 -c Sources/CCRC32C/CCRC32C.c -I Sources/CCRC32C/include -o "$OUT/ccrc32c/CCRC32C.o"
fi
# Likewise the Linux calls' target (Sources/CLinux): the store's and the engine's threads name themselves through it.
mkdir -p "$OUT/clinux"
printf 'module CLinux {\n  header "%s/Sources/CLinux/include/CLinux.h"\n  export *\n}\n' "$PWD" > "$OUT/clinux/module.modulemap"
if [ ! -f "$OUT/clinux/CLinux.o" ] || [ Sources/CLinux/CLinux.c -nt "$OUT/clinux/CLinux.o" ]; then
  clang -O2 -c Sources/CLinux/CLinux.c -I Sources/CLinux/include -o "$OUT/clinux/CLinux.o"
fi
C_MODULES=(-I "$OUT/ccrc32c" "$OUT/ccrc32c/CCRC32C.o" -I "$OUT/clinux" "$OUT/clinux/CLinux.o")

# The store sources import Rules; compiled together with it into one module, they must not.
for file in Sources/Store/*.swift; do
  copy="$OUT/store-src/$(basename "$file")"
  if [ ! -f "$copy" ] || [ "$file" -nt "$copy" ]; then sed '/^import Rules$/d' "$file" > "$copy"; fi
done
for copy in "$OUT"/store-src/*.swift; do [ -f "Sources/Store/$(basename "$copy")" ] || rm -f "$copy"; done
# Likewise the engine sources (for the scenario target), foldered, flattened by path.
declare -A ENGINE_COPIES=()
while IFS= read -r file; do
  name=$(echo "${file#Sources/Engine/}" | tr / _)
  ENGINE_COPIES[$name]=1
  copy="$OUT/engine-src/$name"
  if [ ! -f "$copy" ] || [ "$file" -nt "$copy" ]; then sed '/^import Rules$/d; /^import Store$/d' "$file" > "$copy"; fi
done < <(find Sources/Engine -name '*.swift' | sort)
for copy in "$OUT"/engine-src/*.swift; do [ -n "${ENGINE_COPIES[$(basename "$copy")]:-}" ] || rm -f "$copy"; done

build "$OUT/http" Sources/HTTP/*.swift Tests/Fuzz/Support/FuzzInput.swift Tests/Fuzz/Targets/HTTPParserTarget.swift \
  Tests/Fuzz/Main/HTTPMain.swift || { echo "fuzz: 0 passed, 1 failed (build http)"; exit 1; }
# Rules is foldered (JSON/, Time/, …): every Swift file under it, in a stable order.
mapfile -t RULES < <(find Sources/Rules -name '*.swift' | sort)
build "$OUT/specd" "${RULES[@]}" "$OUT"/store-src/*.swift "$OUT"/engine-src/*.swift "${SUPPORT[@]}" \
  Tests/Fuzz/Support/ActionGenerator.swift Tests/Fuzz/Support/ScenarioGenerator.swift Tests/Fuzz/Targets/ScenarioTarget.swift \
  Tests/Fuzz/Targets/JSONParserTarget.swift Tests/Fuzz/Targets/RuleCompilerTarget.swift Tests/Fuzz/Targets/EvaluationTarget.swift \
  Tests/Fuzz/Targets/ReducerTarget.swift Tests/Fuzz/Targets/StoreDecoderTarget.swift Tests/Fuzz/Main/SpecdMain.swift \
  || { echo "fuzz: 0 passed, 1 failed (build specd)"; exit 1; }

passed=0
failed=0
for target in $TARGETS; do
  binary="$OUT/specd"; [ "$target" = http ] && binary="$OUT/http"
  export FUZZ_TARGET=$target
  log="$OUT/$target.log"
  status=ok
  # Replay: seeds and fixed crashes must all pass.
  replay=()
  for file in Tests/Fuzz/Corpus/"$target"/* Tests/Fuzz/Crashes/"$target"/*; do
    [ -f "$file" ] || continue
    replay+=("$file")
  done
  if [ ${#replay[@]} -gt 0 ] && ! "$binary" -rss_limit_mb=2048 -malloc_limit_mb=1024 "${replay[@]}" > "$log.replay" 2>&1; then
    status="replay crashed (see $log.replay)"
    grep -aE 'Fatal error|ERROR: |Running: ' "$log.replay" | tail -3
  fi
  # Fuzz: new entries into the scratch corpus, seeds read from the repo.
  if [ "$status" = ok ] && [ "$SECONDS_PER_TARGET" -gt 0 ]; then
    mkdir -p "$OUT/corpus/$target"
    seeds=(); [ -d "Tests/Fuzz/Corpus/$target" ] && seeds=("Tests/Fuzz/Corpus/$target")
    "$binary" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 -max_len=4096 -timeout=20 \
      -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix="$OUT/artifacts/$target-" \
      "$OUT/corpus/$target" "${seeds[@]}" > "$log" 2>&1 || status="crashed"
    runs=$(grep -aoE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    rate=$(grep -aoE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    echo "$target: ${runs:-?} executions, ${rate:-?} exec/s in ${SECONDS_PER_TARGET}s"
    if [ "$status" = crashed ]; then
      grep -aE 'Fatal error|ERROR: |SUMMARY|Test unit written' "$log" | head -5
      grep -aE '^ +#[0-9]+ .*(Fuzz|Sources)' "$log" | head -8
    fi
  fi
  if [ "$status" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "$target: FAILED: $status"; fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
