"""The Python package on the GPU machine (scripts/gpu-python run): prices the example book with
`tenor` on CUDA and on the CPU backend (Monte Carlo for every row, 200 000 paths, no Greeks),
checks every price agrees within 1e-12 relative, and checks the CUDA rows equal bit for bit the
CSV the `tenor` command wrote for the same book on CUDA. Writes RESULTS (JSON); exits 1 when a
check failed.

usage: python3 gpu_python_check.py BOOK CLI_CUDA_CSV RESULTS
"""

import csv
import json
import math
import sys
import time


def main() -> int:
    book, cli_csv, results_path = sys.argv[1:4]
    results = {"book": book, "checks": {}}
    checks = results["checks"]
    import tenor

    results["backends"] = tenor.backends().to_dict("records")
    try:
        cuda = tenor.open("cuda")
    except tenor.BackendError as e:
        checks["open_cuda"] = {"ok": False, "error": str(e)}
        write(results_path, results)
        print(f"FAILED open cuda: {e}")
        return 1
    cpu = tenor.open("cpu")
    results["device"] = cuda.name
    settings = dict(engine="mc", paths=200_000, greeks=False)
    timings = {}
    frames = {}
    for name, dev in (("cuda", cuda), ("cpu", cpu)):
        dev.price(book, engine="mc", paths=1000, greeks=False)  # warm: kernels compiled, pools primed
        t0 = time.perf_counter()
        frames[name] = dev.price(book, **settings)
        timings[name] = time.perf_counter() - t0
    results["wall_s"] = timings
    c, p = frames["cuda"], frames["cpu"]
    same_rows = list(c["id"]) == list(p["id"]) and list(c["method"]) == list(p["method"])
    worst = max(abs(a - b) / max(abs(b), 1e-300) if b != 0 else abs(a) for a, b in zip(c["price"], p["price"]))
    mc_rows = int((c["method"] == "mc").sum())
    checks["cuda_vs_cpu"] = {"ok": bool(same_rows and worst <= 1e-12 and len(c) > 0), "rows": len(c),
                             "mc_rows_on_cuda": mc_rows, "largest_relative_difference": worst, "tolerance": 1e-12}
    with open(cli_csv, newline="") as f:
        cli = list(csv.DictReader(f))
    mismatches = 0
    for i, row in enumerate(cli):
        for col in tenor.PRICE_COLUMNS:
            got, want = c[col].iloc[i], row[col]
            if col in ("id", "method", "backend"):
                mismatches += got != want
            elif want == "":
                mismatches += not math.isnan(got)
            else:
                mismatches += float(want) != got
    checks["cuda_vs_cli_bitwise"] = {"ok": len(cli) == len(c) and mismatches == 0, "rows": len(cli),
                                     "cells_differing": mismatches}
    write(results_path, results)
    ok = all(v["ok"] for v in checks.values())
    for k, v in checks.items():
        print(f"{'ok' if v['ok'] else 'FAILED'} {k}: {v}")
    print(f"wall (s): {timings}")
    return 0 if ok else 1


def write(path, results):
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=2, default=str)
    import os

    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
