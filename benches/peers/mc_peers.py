#!/usr/bin/env python3
"""Peer baselines for Tenor's CUDA Monte Carlo throughput: the same problems in PyTorch and
CuPy, written the way a user of those libraries would (framework RNG, elementwise ops,
reductions), timed with CUDA events after a warm-up, median of repetitions.

Problems (the pilot's, pilot/src/workloads.rs): European call spot = strike = 100,
maturity 1 year, r = 0.03, q = 0.01, vol = 0.2, antithetic pairs (2 paths each) in fp32 and fp64
at 2^30 paths (the largest size of the pilot's default sweep); arithmetic-average Asian call,
252 steps, fp32, 2^24 paths, as path-steps/s. Large problems are processed in chunks that fit
comfortably in memory.

Usage: mc_peers.py OUT.json [--reps N] [--jsonl FILE]
  --jsonl FILE  also writes one JSON line {peer, workload, size, unit, rate} per measurement, with
                the pilot's workload names and sizes in paths, for `tenor pilot run --peers FILE`.
"""
import json
import math
import sys
import time

# The pilot's GBM parameters (pilot/src/workloads.rs): spot, strike, r, q, vol, maturity.
SPOT, STRIKE, RATE, DIV, VOL, MATURITY = 100.0, 100.0, 0.03, 0.01, 0.2, 1.0
# Problem name here -> the pilot's workload name.
WORKLOAD = {"european_f32": "mc_european_f32", "european_f64": "mc_european_f64", "asian_f32": "mc_asian_f32"}


def timed(sync_events, fn, reps):
    start_ev, end_ev, sync = sync_events
    fn()
    sync()
    times = []
    for _ in range(reps):
        s, e = start_ev(), end_ev()
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    times.sort()
    return times[len(times) // 2]


def european(xp, randn, dtype, pairs, chunk):
    s0, k, t, r, vol = SPOT, STRIKE, MATURITY, RATE, VOL
    drift = (r - DIV - 0.5 * vol * vol) * t
    vst = vol * math.sqrt(t)
    disc = math.exp(-r * t)

    def run():
        total = 0.0
        acc = None
        done = 0
        while done < pairs:
            n = min(chunk, pairs - done)
            z = randn(n, dtype)
            up = s0 * xp.exp(drift + vst * z)
            dn = s0 * xp.exp(drift - vst * z)
            y = (xp.maximum(up - k, 0) + xp.maximum(dn - k, 0)) * (0.5 * disc)
            part = y.sum(dtype=xp.float64) if hasattr(y, "sum") else y
            acc = part if acc is None else acc + part
            done += n
        return acc

    return run


def asian(xp, randn, dtype, pairs, steps, chunk):
    s0, k, t, r, vol = SPOT, STRIKE, MATURITY, RATE, VOL
    dt = t / steps
    d = (r - DIV - 0.5 * vol * vol) * dt
    v = vol * math.sqrt(dt)
    disc = math.exp(-r * t)

    def run():
        acc = None
        done = 0
        while done < pairs:
            n = min(chunk, pairs - done)
            xu = xp.full((n,), math.log(s0), dtype=dtype)
            xd = xp.full((n,), math.log(s0), dtype=dtype)
            su = xp.zeros((n,), dtype=dtype)
            sd = xp.zeros((n,), dtype=dtype)
            for _ in range(steps):
                z = randn(n, dtype)
                xu += d + v * z
                xd += d - v * z
                su += xp.exp(xu)
                sd += xp.exp(xd)
            y = (xp.maximum(su / steps - k, 0) + xp.maximum(sd / steps - k, 0)) * (0.5 * disc)
            part = y.sum(dtype=xp.float64)
            acc = part if acc is None else acc + part
            done += n
        return acc

    return run


def main():
    out = sys.argv[1]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    rows = []
    jsonl = sys.argv[sys.argv.index("--jsonl") + 1] if "--jsonl" in sys.argv else None
    # (name, antithetic pairs, steps): 2^30 paths for the Europeans, 2^24 paths for the Asian.
    problems = [("european_f32", 1 << 29, None), ("european_f64", 1 << 29, None), ("asian_f32", 1 << 23, 252)]
    try:
        import torch

        dev = torch.device("cuda")
        torch.manual_seed(0)

        def trandn(n, dtype):
            return torch.randn(n, device=dev, dtype=dtype)

        class TX:
            float64 = torch.float64
            exp = staticmethod(torch.exp)

            @staticmethod
            def maximum(a, b):
                return torch.clamp(a, min=b)

            @staticmethod
            def full(shape, val, dtype):
                return torch.full(shape, val, device=dev, dtype=dtype)

            @staticmethod
            def zeros(shape, dtype):
                return torch.zeros(shape, device=dev, dtype=dtype)

        ev = (lambda: torch.cuda.Event(enable_timing=True), lambda: torch.cuda.Event(enable_timing=True),
              torch.cuda.synchronize)
        for name, pairs, steps in problems:
            dtype = torch.float32 if name.endswith("f32") else torch.float64
            if steps is None:
                fn = european(TX, trandn, dtype, pairs, 1 << 27)
                secs = timed(ev, fn, reps)
                rows.append({"lib": "pytorch " + torch.__version__, "problem": name, "pairs": pairs,
                             "seconds": secs, "paths_per_s": 2 * pairs / secs, "price": float(fn().item()) / pairs})
            else:
                fn = asian(TX, trandn, dtype, pairs, steps, 1 << 23)
                secs = timed(ev, fn, max(2, reps // 2))
                rows.append({"lib": "pytorch " + torch.__version__, "problem": name, "pairs": pairs, "steps": steps,
                             "seconds": secs, "path_steps_per_s": 2 * pairs * steps / secs})
        del fn
        torch.cuda.empty_cache()
    except Exception as e:  # report, do not hide
        rows.append({"lib": "pytorch", "error": repr(e)})
    try:
        import cupy as cp

        rng = cp.random.default_rng(0)

        def crandn(n, dtype):
            return rng.standard_normal(n, dtype=dtype)

        def cstart():
            e = cp.cuda.Event()
            return _Wrap(e)

        class _Wrap:
            def __init__(self, e):
                self.e = e

            def record(self):
                self.e.record()

            def synchronize(self):
                self.e.synchronize()

            def elapsed_time(self, other):
                return cp.cuda.get_elapsed_time(self.e, other.e)

        ev = (cstart, cstart, cp.cuda.Device().synchronize)
        for name, pairs, steps in problems:
            dtype = cp.float32 if name.endswith("f32") else cp.float64
            if steps is None:
                fn = european(cp, crandn, dtype, pairs, 1 << 27)
                secs = timed(ev, fn, reps)
                rows.append({"lib": "cupy " + cp.__version__, "problem": name, "pairs": pairs, "seconds": secs,
                             "paths_per_s": 2 * pairs / secs, "price": float(fn()) / pairs})
            else:
                fn = asian(cp, crandn, dtype, pairs, steps, 1 << 23)
                secs = timed(ev, fn, max(2, reps // 2))
                rows.append({"lib": "cupy " + cp.__version__, "problem": name, "pairs": pairs, "steps": steps,
                             "seconds": secs, "path_steps_per_s": 2 * pairs * steps / secs})
    except Exception as e:
        rows.append({"lib": "cupy", "error": repr(e)})
    # Allocation latency of the frameworks' own pools, for the allocation report.
    try:
        import torch

        x = torch.empty(1 << 20, device="cuda", dtype=torch.uint8)
        del x
        t0 = time.perf_counter()
        for _ in range(10000):
            x = torch.empty(1 << 20, device="cuda", dtype=torch.uint8)
            del x
        rows.append({"lib": "pytorch", "problem": "alloc_free_1MiB", "us": (time.perf_counter() - t0) / 10000 * 1e6})
    except Exception as e:
        rows.append({"lib": "pytorch", "error": repr(e)})
    try:
        import cupy as cp

        t0 = time.perf_counter()
        for _ in range(10000):
            x = cp.empty(1 << 20, dtype=cp.uint8)
            del x
        rows.append({"lib": "cupy", "problem": "alloc_free_1MiB", "us": (time.perf_counter() - t0) / 10000 * 1e6})
    except Exception as e:
        rows.append({"lib": "cupy", "error": repr(e)})
    with open(out, "w") as f:
        json.dump({"what": "PyTorch and CuPy on the same Monte Carlo problems", "rows": rows}, f, indent=1)
    if jsonl:
        with open(jsonl, "w") as f:
            for line in peer_lines(rows):
                f.write(json.dumps(line) + "\n")
    for r in rows:
        print(r)


def peer_lines(rows):
    """The rows in the pilot's peer format: {peer, workload, size (paths), unit, rate}."""
    out = []
    for r in rows:
        if r.get("problem") not in WORKLOAD or "seconds" not in r:
            continue
        peer = r["lib"].replace(" ", "-")
        size = 2 * r["pairs"]
        if "paths_per_s" in r:
            out.append({"peer": peer, "workload": WORKLOAD[r["problem"]], "size": size, "unit": "paths/s",
                        "rate": r["paths_per_s"]})
        else:
            out.append({"peer": peer, "workload": WORKLOAD[r["problem"]], "size": size, "unit": "path-steps/s",
                        "rate": r["path_steps_per_s"]})
    return out


if __name__ == "__main__":
    main()
