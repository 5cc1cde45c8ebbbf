#!/usr/bin/env python3
"""numpy's vectorised Monte Carlo for the problems of benches/benches/mc_cpu.rs, fp64, same sizes.

European call: 2^21 paths as 2^20 antithetic pairs, S_T = S exp((r - q - v^2/2) T +/- v sqrt(T) Z).
Arithmetic Asian call: 2^16 paths (2^15 antithetic pairs) x 252 fixings at T j / 252, cumulative
log-increments, arithmetic and geometric averages, geometric control variate with the
closed-form geometric price (as the Rust engine). Pairs are processed in chunks so the arrays
stay in cache-friendly sizes; numpy's Generator (PCG64, ziggurat normals) supplies the normals.

Prints `european_paths_per_s <x>` and `asian_path_steps_per_s <y>` (median of --repeats runs) and
the prices as a sanity check.

With `--jsonl FILE` it runs the pilot's problems instead (pilot/src/workloads.rs: r = 0.03,
q = 0.01, spot = strike = 100, vol = 0.2, one year; the quick suite's largest sizes, 2^20 paths
for the European and 2^15 paths for the Asian) and also writes one JSON line
{peer, workload, size, unit, rate} per problem (mc_european_f64, mc_asian_f64) for
`tenor pilot run --peers FILE`.
"""
import argparse
import json
import math
import time

import numpy as np

S, K, T, R, Q, V = 100.0, 100.0, 1.0, 0.05, 0.02, 0.2
EUROPEAN_PATHS = 1 << 21
ASIAN_PATHS = 1 << 16
ASIAN_STEPS = 252


def norm_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def geometric_closed_form(n):
    times = np.arange(1, n + 1) * T / n
    mean = math.log(S) + (R - Q - 0.5 * V * V) * times.mean()
    srt = np.sort(times)
    var = V * V * float(np.sum(srt * (2 * (n - np.arange(n)) - 1))) / (n * n)
    fwd = math.exp(mean + 0.5 * var)
    s = math.sqrt(var)
    d1 = (math.log(fwd / K) + 0.5 * var) / s
    return math.exp(-R * T) * (fwd * norm_cdf(d1) - K * norm_cdf(d1 - s))


def european(rng, chunk=1 << 18):
    pairs = EUROPEAN_PATHS // 2
    drift, vol, disc = (R - Q - 0.5 * V * V) * T, V * math.sqrt(T), math.exp(-R * T)
    total = 0.0
    for start in range(0, pairs, chunk):
        z = rng.standard_normal(min(chunk, pairs - start))
        up = np.maximum(S * np.exp(drift + vol * z) - K, 0.0)
        dn = np.maximum(S * np.exp(drift - vol * z) - K, 0.0)
        total += float(np.sum(0.5 * disc * (up + dn)))
    return total / pairs


def asian(rng, geo_exact, chunk=2048):
    pairs = ASIAN_PATHS // 2
    dt = T / ASIAN_STEPS
    drift, vol, disc = (R - Q - 0.5 * V * V) * dt, V * math.sqrt(dt), math.exp(-R * T)
    a_all, g_all = [], []
    for start in range(0, pairs, chunk):
        z = rng.standard_normal((min(chunk, pairs - start), ASIAN_STEPS))
        vz = vol * z
        ys = []
        for sign in (1.0, -1.0):
            x = np.cumsum(drift + sign * vz, axis=1)
            x += math.log(S)
            arith = np.exp(x).mean(axis=1)
            geo = np.exp(x.mean(axis=1))
            ys.append((np.maximum(arith - K, 0.0), np.maximum(geo - K, 0.0)))
        a_all.append(0.5 * disc * (ys[0][0] + ys[1][0]))
        g_all.append(0.5 * disc * (ys[0][1] + ys[1][1]))
    a, g = np.concatenate(a_all), np.concatenate(g_all)
    cov = np.cov(a, g)
    b = cov[0, 1] / cov[1, 1]
    return float(a.mean() - b * (g.mean() - geo_exact))


def median_time(f, repeats):
    """Median wall time of `repeats` runs (criterion's statistic on the Rust side)."""
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--jsonl", help="run the pilot's problems and write them as peer JSON lines here")
    args = ap.parse_args()
    if args.jsonl:
        global R, Q, EUROPEAN_PATHS, ASIAN_PATHS
        R, Q, EUROPEAN_PATHS, ASIAN_PATHS = 0.03, 0.01, 1 << 20, 1 << 15
    rng = np.random.default_rng(1)
    geo_exact = geometric_closed_form(ASIAN_STEPS)
    t_e, price_e = median_time(lambda: european(rng), args.repeats)
    t_a, price_a = median_time(lambda: asian(rng, geo_exact), args.repeats)
    print(f"numpy {np.__version__}")
    print(f"european_price {price_e:.6f}")
    print(f"asian_price {price_a:.6f}")
    print(f"european_paths_per_s {EUROPEAN_PATHS / t_e:.6e}")
    print(f"asian_path_steps_per_s {ASIAN_PATHS * ASIAN_STEPS / t_a:.6e}")
    if args.jsonl:
        peer = f"numpy-{np.__version__}"
        rows = [
            {"peer": peer, "workload": "mc_european_f64", "size": EUROPEAN_PATHS, "unit": "paths/s",
             "rate": EUROPEAN_PATHS / t_e},
            {"peer": peer, "workload": "mc_asian_f64", "size": ASIAN_PATHS, "unit": "path-steps/s",
             "rate": ASIAN_PATHS * ASIAN_STEPS / t_a},
        ]
        with open(args.jsonl, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
