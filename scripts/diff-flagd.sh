#!/usr/bin/env bash
# Differential test against flagd: random flagd flag files × random contexts, evaluated by specd over OFREP and by
# openfeature-flagd-core (OpenFeature's Python implementation of flagd's evaluator, PyPI, in a venv); see
# scripts/diff_flagd.py for the design and the oracle's known deviations, which are excluded with a reason each.
# Usage: scripts/diff-flagd.sh [COMPARISONS=20000] [SEED=1]. Last line:
#   diff-flagd: N comparisons, D disagreements (K excluded)
set -euo pipefail
cd "$(dirname "$0")/.."
COMPARISONS=${1:-20000}
SEED=${2:-1}
VENV=${VENV_FLAGD:-.venv-flagd}
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import openfeature.contrib.tools.flagd.core' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "openfeature-flagd-core==2.0.0"
fi
# 2.0.0's fractional hashes CBOR (flagd's fractional v3); flagd's Go daemon and specd hash the string (v2), as the
# 1.0.0 release does: its custom_ops.py is kept beside the venv and only its fractional is used.
V1_OPS="$VENV/flagd-core-1.0.0/openfeature/contrib/tools/flagd/core/targeting/custom_ops.py"
if [ ! -f "$V1_OPS" ]; then
  "$VENV/bin/pip" download -q --no-deps "openfeature-flagd-core==1.0.0" -d "$VENV/wheels"
  "$VENV/bin/python" -m zipfile -e "$VENV"/wheels/openfeature_flagd_core-1.0.0-*.whl "$VENV/flagd-core-1.0.0"
fi
swift build --product specd >/dev/null
BIN=$(swift build --show-bin-path)/specd
FLAGD_CORE_V1_OPS="$V1_OPS" "$VENV/bin/python" scripts/diff_flagd.py "$BIN" "$COMPARISONS" "$SEED"
