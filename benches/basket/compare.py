#!/usr/bin/env python3
"""The basket job on the CPU in one run (docs/results/basket-cpu-*.md): Tenor's `tenor basket`
(CPU backend, every core), the numpy implementation of the same job (benches/basket/numpy_basket.py)
and QuantLib 1.44's MCAmericanBasketEngine on the same sizes under geometric Brownian motion
(scripts/basket_reference.py quantlib: vol sqrt(v0) per asset, the job's price correlations;
QuantLib has no American basket engine for Heston), each timed by wall clock and CPU time.

    compare.py --tenor target/release/tenor [--python .cache/basket-venv/bin/python] [--out FILE.json]
               [--baseline-paths N --baseline-steps N --large-paths N --large-steps N] [--skip-large-peers]

Workloads: the baseline (examples/basket/baseline.toml, 5 x 25,000 x 252) with every Greek for
Tenor and numpy, its price for QuantLib; the large problem (examples/basket/large.toml,
10 x 100,000 x 1,260), the price for all three. Prints a markdown table and writes the raw
figures as JSON.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd, env=None):
    """Runs cmd; returns (wall s, CPU s of the child, stdout, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return wall, cpu, r.stdout, r.stderr


def price_of(csv_text):
    for line in csv_text.splitlines():
        if line.startswith("price,"):
            parts = line.split(",")
            return float(parts[3]), float(parts[4])
    raise SystemExit("no price row")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tenor", required=True)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--out")
    p.add_argument("--baseline-paths", type=int, default=25000)
    p.add_argument("--baseline-steps", type=int, default=252)
    p.add_argument("--large-paths", type=int, default=100000)
    p.add_argument("--large-steps", type=int, default=1260)
    p.add_argument("--skip-large-peers", action="store_true", help="numpy and QuantLib on the baseline only")
    a = p.parse_args()
    jobs = {
        "baseline": (os.path.join(ROOT, "examples/basket/baseline.toml"), a.baseline_paths, a.baseline_steps, True),
        "large": (os.path.join(ROOT, "examples/basket/large.toml"), a.large_paths, a.large_steps, False),
    }
    rows = []
    for name, (job, paths, steps, greeks) in jobs.items():
        with tempfile.TemporaryDirectory() as d:
            cmd = [a.tenor, "basket", "--job", job, "--backend", "cpu", "--paths", str(paths), "--steps", str(steps),
                   "--out", d]
            if not greeks:
                cmd.append("--no-greeks")
            wall, cpu, _, _ = timed(cmd)
            csv_text = open(os.path.join(d, "greeks.csv")).read()
            summary = json.load(open(os.path.join(d, "summary.json")))
        price, se = price_of(csv_text)
        rows.append({"workload": name, "engine": "tenor (cpu backend)", "model": "Heston", "greeks": greeks,
                     "paths": paths, "steps": steps, "wall_s": wall, "cpu_s": cpu, "price": price, "stderr": se,
                     "values": len(csv_text.splitlines()) - 1, "job_s": summary["timings"]["cold_s"]})
        print(rows[-1], file=sys.stderr)
        if name == "large" and a.skip_large_peers:
            continue
        cmd = [a.python, os.path.join(ROOT, "benches/basket/numpy_basket.py"), job, "--paths", str(paths), "--steps",
               str(steps)]
        if not greeks:
            cmd.append("--no-greeks")
        wall, cpu, out, _ = timed(cmd)
        price, se = price_of(out)
        rows.append({"workload": name, "engine": "numpy (same method)", "model": "Heston", "greeks": greeks,
                     "paths": paths, "steps": steps, "wall_s": wall, "cpu_s": cpu, "price": price, "stderr": se,
                     "values": len(out.splitlines()) - 1})
        print(rows[-1], file=sys.stderr)
        # QuantLib reads the steps from the job's [simulation]: a copy with the sizes asked for.
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            text = open(job).read()
            text = text.split("[simulation]")[0] + f"[simulation]\npaths = {paths}\nsteps = {steps}\nseed = 42\n"
            f.write(text)
            qjob = f.name
        try:
            cmd = [a.python, os.path.join(ROOT, "scripts/basket_reference.py"), "quantlib", qjob, str(paths), str(paths), "1"]
            wall, cpu, out, _ = timed(cmd)
        finally:
            os.unlink(qjob)
        q = out.split()
        rows.append({"workload": name, "engine": "QuantLib 1.44 MCAmericanBasketEngine", "model": "GBM (vol sqrt(v0))",
                     "greeks": False, "paths": paths, "steps": steps, "wall_s": wall, "cpu_s": cpu,
                     "price": float(q[1]), "stderr": float(q[2]), "values": 1})
        print(rows[-1], file=sys.stderr)
    print("| workload | engine | model | values | paths x steps | wall s | CPU s | price +/- se |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['workload']} | {r['engine']} | {r['model']} | {r['values']} | {r['paths']} x {r['steps']} | "
              f"{r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['price']:.4f} +/- {r['stderr']:.4f} |")
    if a.out:
        json.dump({"cores": os.cpu_count(), "load": os.getloadavg(), "rows": rows}, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
