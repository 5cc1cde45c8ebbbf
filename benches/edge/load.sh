#!/usr/bin/env bash
# Load figures of docs/results/edge-load-2026-12-01.md for one tenor binary ($1): generates the
# inputs into $2 (once), then prints wall time and peak RSS (/usr/bin/time -v) of a 1M-row
# European book, a 10,000-run sweep and a 200k-id allocation trace profile.
set -euo pipefail
T=$(realpath "$1"); D=${2:-/tmp/tenor-edge-load}; mkdir -p "$D"
SH=$(cd "${TENOR_SHARED:-$(dirname "$0")/../../../shared}" && pwd)
[ -f "$D/book1m.csv" ] || python3 - "$D" <<'PY'
import sys
d = sys.argv[1]
with open(f"{d}/book1m.csv", "w") as f:
    f.write("id,kind,type,spot,strike,maturity,rate,dividend,vol\n")
    for i in range(1_000_000):
        f.write(f"t{i},european,{'call' if i%2==0 else 'put'},100,{60+i%80},{0.1+(i%50)/10:.2f},0.03,0.01,{0.1+(i%30)/100:.2f}\n")
for name, ids in (("trace200k.csv", True), ("trace1id.csv", False)):
    with open(f"{d}/{name}", "w") as f:
        f.write("time_ns,op,bytes,stream,job,block,thread\n")
        for i in range(200_000):
            s = i if ids else 0
            f.write(f"{2*i},alloc,{256*(1+i%64)},{s},0,{i+1},{s}\n{2*i+1},free,{256*(1+i%64)},{s},0,{i+1},{s}\n")
PY
m() { /usr/bin/time -v "$@" > "$D/out" 2> "$D/time"; echo "$(grep Elapsed "$D/time" | awk '{print $NF}') wall, $(grep 'Maximum resident' "$D/time" | awk '{print $NF}') KB peak RSS, load $(cut -d' ' -f1 /proc/loadavg)"; }
echo "price 1M european: $(m "$T" price --portfolio "$D/book1m.csv" --out "$D/p1m.csv")"
echo "sweep 10000 runs: $(m "$T" backtest --strategy sma_crossover --data "$SH/data/equities/spy_daily_1999_2020.csv" --sweep fast=1:100:1 --sweep slow=101:200:1 --out "$D/sweep")"
echo "alloc profile 200k ids: $(m "$T" alloc profile --trace "$D/trace200k.csv" --out "$D/al")"
echo "alloc profile 1 id: $(m "$T" alloc profile --trace "$D/trace1id.csv" --out "$D/al1")"
