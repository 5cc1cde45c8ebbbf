#!/usr/bin/env python3
"""Renders the files of `scripts/gpu-check run` (results.json, log.txt) as markdown under
docs/results/: date, device, driver, versions, tests, book, determinism, Monte Carlo
throughput against PyTorch and CuPy, allocation latency and the pricing loop, each against the
targets of issue 5.

Usage: gpu-report.py DIR OUTDIR"""
import json
import os
import re
import sys

src, outdir = sys.argv[1], sys.argv[2]
res = json.load(open(os.path.join(src, "results.json")))
log = open(os.path.join(src, "log.txt")).read()
date = re.search(r"^date: (\S+)", log, re.M).group(1)
info = res.get("info", {})
dev = info.get("name", "?")
L = []
w = L.append


def ok(b):
    return "met" if b else "NOT met"


w(f"# CUDA backend on the {dev}: checks and benchmarks")
w("")
w(f"Run {date} by `scripts/gpu-check run` (one command on the GPU machine; binaries built here by")
w("`scripts/gpu-check build`, staged with `scripts/gpu-check stage`). Raw files: the run's `results.json`")
w("and `log.txt`, rendered by `scripts/gpu-report.py`.")
w("")
w("| | |")
w("| --- | --- |")
w(f"| device | {dev}, {info.get('multiprocessors')} multiprocessors, {info.get('memory_bytes', 0) / 2**30:.1f} GiB |")
w(f"| driver | {info.get('driver')} |")
for k, v in sorted(info.get("versions", {}).items()):
    w(f"| {k} | {v} |")
w("")
w("## Tests (CUDA conformance suite, allocators, IPC, NVRTC)")
w("")
for m in re.finditer(r"^=== (\S+): (ok|FAILED)", log, re.M):
    w(f"- step `{m.group(1)}`: {m.group(2)}")
for m in re.finditer(r"^test result: .*$", log, re.M):
    w(f"- `{m.group(0)}`")
w("")
b = res.get("book", {})
if b:
    w(f"## Example book, CUDA vs CPU ({b['book']}, {b['pairs']} antithetic pairs per trade, `--engine mc`, same seed)")
    w("")
    w("| trade | method | CUDA | CPU | rel. diff | std. error | closed form |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for r in b["rows"]:
        cf = "" if r.get("closed_form") is None else f"{r['closed_form']:.6f}"
        se = "" if r.get("stderr") is None else f"{r['stderr']:.4f}"
        w(f"| {r['id']} | {r.get('method', 'mc')} | {r['cuda']:.12f} | {r['cpu']:.12f} | {r['rel_diff']:.1e} | {se} | {cf} |")
    w("")
    w(f"Largest relative difference {b['max_rel_diff']:.2e}, tolerance {b['tolerance']:.0e}: "
      f"{'pass' if b['pass'] else 'FAIL'}. Skipped rows: {b.get('skipped') or 'none'}.")
    w("")
d = res.get("determinism", {})
if d:
    w("## Deterministic mode")
    w("")
    w(f"{d['jobs']} pricing jobs on {d['streams']} streams, default pool with release threshold max and "
      "opportunistic reuse and internal dependencies off, run twice: "
      f"**{'bitwise identical' if d['bitwise_identical'] else 'DIFFERENT'}**.")
    w("")
mc = res.get("mc", {})
peers = res.get("peers", {}).get("rows", [])


def peer(lib, problem, key):
    for r in peers:
        if r.get("lib", "").startswith(lib) and r.get("problem") == problem:
            return r.get(key)
    return None


if mc:
    w("## Monte Carlo throughput (Philox4x32-10, antithetic pairs = 2 paths, CUDA events, median of "
      f"{mc.get('reps')})")
    w("")
    w("| kernel | problem | Tenor | target | PyTorch | CuPy | x PyTorch | x CuPy | targets |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    spec = {"mc_european_f32": ("european_f32", "paths_per_s", 4e11, "paths/s"),
            "mc_european": ("european_f64", "paths_per_s", 1.5e11, "paths/s"),
            "mc_asian_f32": ("asian_f32", "path_steps_per_s", 3e11, "path-steps/s")}
    for r in mc["rows"]:
        if r.get("variant", "built-in") != "built-in":
            continue
        prob, key, target, unit = spec[r["kernel"]]
        v = r[key]
        pt, cp = peer("pytorch", prob, key), peer("cupy", prob, key)
        xpt = v / pt if pt else float("nan")
        xcp = v / cp if cp else float("nan")
        size = f"{r['paths']:.3g} paths" + (f" x {r['steps']} steps" if "steps" in r else "")
        met = v >= target and xpt >= 8 and xcp >= 8
        w(f"| {r['kernel']} | {size} | {v:.3g} {unit} | {target:.2g} | {pt or 0:.3g} | {cp or 0:.3g} | "
          f"{xpt:.1f} | {xcp:.1f} | {ok(met)} |")
    w("")
    for r in mc["rows"]:
        if "price" in r:
            w(f"- {r['kernel']}: price {r['price']:.6f} +/- {r['stderr']:.6f} (Black-Scholes {r['black_scholes']:.6f})")
    w("")
a = res.get("alloc", {})
if a:
    sizes = [s["bytes"] for s in a["rows"][0]["sizes"]]

    def fmt(n):
        return f"{n // 2**20} MiB" if n >= 2**20 else (f"{n // 1024} KiB" if n >= 1024 else f"{n} B")

    # Every cuMemAlloc/cuMemFree row is a baseline: on a bare context alone and beside a resident
    # block, and inside an open backend (the state the pools below are measured in). Older
    # records have one, the first row.
    bases = [r for r in a["rows"] if r["allocator"].startswith("cuMemAlloc")] or a["rows"][:1]
    small = [i for i, n in enumerate(sizes) if n <= 2**20]
    large = [i for i, n in enumerate(sizes) if n > 2**20]

    def table(key, title):
        w(title)
        w("")
        w("| allocator | " + " | ".join(fmt(s) for s in sizes) + " |")
        w("| --- |" + " --- |" * len(sizes))
        for r in a["rows"]:
            w(f"| {r['allocator']} | " + " | ".join(f"{s[key]:.3f}" for s in r["sizes"]) + " |")
        w("")
        ratios = {}
        for b in bases:
            base = {s["bytes"]: s[key] for s in b["sizes"]}
            ratios[b["allocator"]] = {
                r["allocator"]: [base[s["bytes"]] / s[key] for s in r["sizes"]]
                for r in a["rows"] if r not in bases
            }
            w(f"Speed-up over {b['allocator']}:")
            w("")
            w("| allocator | " + " | ".join(fmt(s) for s in sizes) + " |")
            w("| --- |" + " --- |" * len(sizes))
            for name, xs in ratios[b["allocator"]].items():
                w(f"| {name} | " + " | ".join(f"{x:.1f}x" for x in xs) + " |")
            w("")
        return ratios

    def verdicts(ratios, what):
        """The 30x target per baseline, split at 1 MiB (the driver serves cuMemAlloc of 1 MiB and
        less from memory it may keep mapped, larger sizes never)."""
        for b, rs in ratios.items():
            pool = rs.get("default pool, threshold max", [0] * len(sizes))
            for label, idx in (("256 B to 1 MiB", small), ("4 MiB to 64 MiB", large)):
                xs = [pool[i] for i in idx]
                if xs:
                    w(f"- Target (pool with threshold max at least 30x faster per pair than cuMemAlloc/cuMemFree), "
                      f"{what}, against {b}, {label}: {ok(min(xs) >= 30)} ({min(xs):.1f}x to {max(xs):.1f}x).")
        w("")

    if "pair_us" in a["rows"][0]["sizes"][0]:
        ratios = table("pair_us", f"## Allocation latency: host microseconds per allocate + deallocate pair on one stream "
                       f"(stream-ordered: {a['batch']} pairs then one synchronise, median of {a['batches']} batches)")
        verdicts(ratios, "stream-ordered pairs")
        if len(bases) > 1:
            w("The baselines are the same driver calls in different states: alone, freeing a small block "
              "gives its memory back to the driver and the next cuMemAlloc maps it again; beside a "
              "resident small block, and in an open backend (which holds small blocks of its own), the "
              "memory stays mapped. The pools are measured in an open backend, so the last baseline is "
              "the like-for-like one. The cuMemAlloc allocator synchronises the freeing stream before "
              "each cuMemFree (the port's stream-ordered contract), which the plain-C check below does "
              "not. See docs/cuda.md, \"cuMemAlloc baselines\".")
            w("")
    raw = re.search(r"^=== alloc-raw: .*?\n((?:\|.*\n)+)", log, re.M)
    if raw:
        w("Independent check of the baselines: `benches/cuda/raw/alloc_pairs.c`, plain C on the driver API "
          "(no Rust, no cudarc), same batches, run in its own process (microseconds per pair):")
        w("")
        w(raw.group(1).rstrip("\n"))
        w("")
    synced = table("median_us", f"## Allocation latency with a synchronise after every pair (median of {a['iters']}, "
                   "microseconds; bounded below by the synchronise itself)")
    verdicts(synced, "with a synchronise after every pair")
    for r in peers:
        if r.get("problem") == "alloc_free_1MiB":
            w(f"- {r['lib']} allocator, 1 MiB alloc + free from Python: {r['us']:.2f} us")
    w("")
lp = res.get("loop", {})
if lp:
    w(f"## Bursty multi-stream pricing loop ({lp['jobs']} jobs)")
    w("")
    w(lp["what"])
    w("")
    checked = "warmup_max_rel_diff_vs_cpu" in lp["rows"][0]
    if checked:
        w("Checked: each allocator's 16-job warm-up against the CPU reference backend (same seeds, relative "
          f"difference at most {lp['tolerance']:g}), and every timed run's per-job sums bitwise against the first "
          "allocator's.")
        w("")
        w("| allocator | seconds | jobs/s | x cuMemAlloc | warm-up vs CPU | sums as the first |")
        w("| --- | --- | --- | --- | --- | --- |")
    else:
        w("| allocator | seconds | jobs/s | x cuMemAlloc |")
        w("| --- | --- | --- | --- |")
    base = lp["rows"][0]["seconds"]
    best = 0
    for r in lp["rows"]:
        extra = (f" {r['warmup_max_rel_diff_vs_cpu']:.1e} | {'identical' if r['same_sums_as_first'] else 'DIFFERENT'} |"
                 if checked else "")
        w(f"| {r['allocator']} | {r['seconds']:.4f} | {r['jobs_per_s']:.0f} | {base / r['seconds']:.2f} |" + extra)
        if r["allocator"] != lp["rows"][0]["allocator"]:
            best = max(best, base / r["seconds"])
    w("")
    w(f"Target (loop at least 2x faster than with cuMemAlloc/cuMemFree): {ok(best >= 2)}.")
    w("")
ag = res.get("agree", {})
if ag:
    secs = {m.group(1): float(m.group(2)) for m in re.finditer(r"^=== (\S+): ok \(([\d.]+) s\)", log, re.M)}

    def t(step):
        return f"{secs[step]} s" if step in secs else "?"

    w("## Whole-product checks (same run, `tenor` built with `--features cuda`, CPU backend on the GPU host's cores)")
    w("")
    w("| check | result |")
    w("| --- | --- |")
    w(f"| `tenor price --engine mc --paths 200000 --no-greeks` on the example book, CUDA vs CPU ({ag['book_rows']} trades) | "
      f"largest relative price difference {ag['book_max_rel_diff']:.1e} (tolerance 1e-12); wall CUDA {t('price-cuda')}, CPU {t('price-cpu')} |")
    w(f"| `tenor backtest --strategy short_straddle` on SPY 1999-2020 ({ag['straddle_bars']} bars), CUDA vs CPU | "
      f"largest relative equity difference {ag['straddle_max_rel_equity_diff']:.1e}; final equity {ag['straddle_final_cuda']:,.2f} (CUDA), "
      f"{ag['straddle_final_cpu']:,.2f} (CPU); wall CUDA {t('straddle-cuda')}, CPU {t('straddle-cpu')} |")
    if "sweep_identical" in ag:
        w(f"| `tenor backtest --strategy short_straddle --sweep roll=5:35:10 --sweep window=10:40:10 --backend cuda` "
          f"({ag['sweep_runs']} runs on SPY 1999-2020): each bar of every run priced in one batch on the port, against "
          f"`--unbatched` | wall batched {t('sweep-batched')}, unbatched {t('sweep-unbatched')}; sweep tables "
          f"{'identical' if ag['sweep_identical'] else 'DIFFERENT'} |")
    h = ag.get("heston", {})
    if h:
        c, p = h["cuda"], h["cpu"]
        keys = ("v0", "kappa", "theta", "sigma", "rho")
        dp = max(abs(c[k] - p[k]) / abs(p[k]) for k in keys)
        w(f"| `tenor calibrate heston` on the SPX snapshot ({c['quotes']} quotes, pricings on the port) | "
          f"CUDA {c['wall_seconds']:.3f} s, CPU {p['wall_seconds']:.3f} s; {c['pricings']} pricings in {c['launches']} launches; "
          f"weighted vol RMSE {c['weighted_rmse_vol'] * 1e4:.2f} bp (CUDA) vs {p['weighted_rmse_vol'] * 1e4:.2f} bp (CPU); "
          f"largest relative parameter difference {dp:.1e} |")
    w("")
os.makedirs(outdir, exist_ok=True)
name = os.path.join(outdir, f"cuda-{dev.replace('NVIDIA ', '').replace(' ', '-').lower()}-{date[:10]}.md")
open(name, "w").write("\n".join(L) + "\n")
print(name)
