#!/usr/bin/env bash
# Runs the CPU Monte Carlo benchmark (criterion, release profile) and numpy's vectorised version
# of the same problems on this machine, then prints both throughputs and their ratio.
# numpy is installed (pinned) into a virtual environment under .cache/ when missing.
# Usage: benches/run-vs-numpy.sh
#   TENOR_BENCH_SKIP_RUST=1  reuse the last criterion results (CRITERION_HOME, default target/criterion)
#   PYTHON=/path/to/python   use that interpreter (with numpy) instead of the .cache venv
set -euo pipefail
cd "$(dirname "$0")/.."
NUMPY_VERSION="2.2.6"
if [ -z "${PYTHON:-}" ]; then
  VENV=.cache/numpy-venv
  if ! "$VENV/bin/python" -c "import numpy" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "numpy==$NUMPY_VERSION"
  fi
  PYTHON="$VENV/bin/python"
fi
if [ "${TENOR_BENCH_SKIP_RUST:-0}" != 1 ]; then
  cargo bench -p tenor-benches --bench mc_cpu -- --noplot
fi
numpy_out=$("$PYTHON" benches/numpy_mc.py)
echo "$numpy_out"
NUMPY_OUT="$numpy_out" "$PYTHON" - <<'PY'
import json, os
paths, steps_paths, steps = 1 << 21, 1 << 16, 252
home = os.environ.get("CRITERION_HOME", "target/criterion")
def rate(group, name, elems):
    with open(f"{home}/{group}/{name}/new/estimates.json") as f:
        ns = json.load(f)["median"]["point_estimate"]
    return elems / (ns * 1e-9)
np_vals = dict(l.split() for l in os.environ["NUMPY_OUT"].splitlines() if " " in l)
print(f"machine: {os.cpu_count()} logical CPUs; numpy is single-threaded")
for label in ("all_threads", "1_thread"):
    group = f"mc_cpu_f64_{label}"
    rows = [
        ("European call, paths/s", rate(group, "european_call_paths", paths), float(np_vals["european_paths_per_s"])),
        ("252-step arithmetic Asian, path-steps/s", rate(group, "asian_arith_252_path_steps", steps_paths * steps),
         float(np_vals["asian_path_steps_per_s"])),
    ]
    for name, ours, theirs in rows:
        print(f"{name:40s} tenor cpu ({label:11s}) {ours:.3e}  numpy {theirs:.3e}  ratio {ours / theirs:.2f}x")
PY
