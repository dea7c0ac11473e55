#!/usr/bin/env bash
# Runs the README's curl walk-through verbatim against a fresh daemon on an ephemeral loopback port and checks that
# every "# → TEXT" line appears in the output of the command above it.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product specd >/dev/null
BIN=$(swift build --show-bin-path)/specd
source scripts/lib.sh
start_specd walk "$BIN"
PID=${PIDS[-1]}
PORT=$(cat "$WORK/walk.port")

# The block between the walkthrough markers, commands joined across trailing backslashes.
python3 - "$WORK/steps" <<'PY'
import re, sys
text = open("README.md").read()
block = text.split("<!-- walkthrough:start -->")[1].split("<!-- walkthrough:end -->")[0]
body = block.split("```sh")[1].split("```")[0]
steps, command = [], None
lines = body.strip("\n").split("\n")
i = 0
while i < len(lines):
    line = lines[i]
    while line.endswith("\\"):
        i += 1
        line = line[:-1] + " " + lines[i].strip()
    if line.startswith("# → "):
        steps[-1]["expect"].append(line[len("# → "):])
    elif line.startswith("#") or not line.strip():
        pass
    else:
        steps.append({"command": line, "expect": []})
    i += 1
with open(sys.argv[1], "w") as out:
    for step in steps:
        out.write(step["command"].replace("\t", " ") + "\t" + "\x1f".join(step["expect"]) + "\n")
PY

passed=0
failed=0
while IFS=$'\t' read -r command expectations; do
  if [[ "$command" == SPECD=* ]]; then
    export SPECD="http://127.0.0.1:$PORT"
    continue
  fi
  output=$(bash -c "$command")
  IFS=$'\x1f' read -r -a expected <<<"$expectations"
  for text in "${expected[@]}"; do
    if [[ "$output" == *"$text"* ]]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "FAIL: $command"
      echo "  expected to contain: $text"
      echo "  got: $output"
    fi
  done
done <"$WORK/steps"
echo "walkthrough: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
