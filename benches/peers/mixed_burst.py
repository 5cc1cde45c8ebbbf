#!/usr/bin/env python3
"""A bursty mixed-library workload: PyTorch and CuPy in one process, alternating bursts of
allocations of mixed sizes (log-uniform 64 KiB..192 MiB, seeded) with compute on each block,
beside a few long-lived blocks per library (curves). Each library's own pool keeps what its
bursts reserved; one shared pool lets the next library's burst reuse it.

Usage: mixed_burst.py OUT.json [--tenor LIB] [--bursts N]
  --tenor LIB  both libraries allocate from libtenor_allocator.so (benches/peers/tenor_alloc.py);
               without it each uses its own pool (PyTorch's caching allocator, CuPy's pool).
Writes {mode, bursts, wall_s, peak_reserved_bytes, baseline_bytes, checksum}; peak reserved is
device memory in use (cudaMemGetInfo: total - free) at the peak of each burst, less the
baseline measured after both libraries initialised their contexts.
"""
import json
import random
import sys
import time


def main():
    out = sys.argv[1]
    lib = sys.argv[sys.argv.index("--tenor") + 1] if "--tenor" in sys.argv else None
    bursts = int(sys.argv[sys.argv.index("--bursts") + 1]) if "--bursts" in sys.argv else 24
    handle = None
    if lib:
        sys.path.insert(0, __file__.rsplit("/", 1)[0])
        import tenor_alloc

        handle = tenor_alloc.install(lib)
    import cupy as cp
    import torch

    torch.zeros(1, device="cuda")
    cp.zeros(1)
    cp.cuda.Device().synchronize()
    free0, total = cp.cuda.runtime.memGetInfo()
    baseline = total - free0
    rng = random.Random(15)
    keep_t = [torch.full((1 << 20,), 1.0, device="cuda") for _ in range(4)]
    keep_c = [cp.full((1 << 20,), 1.0, dtype=cp.float32) for _ in range(4)]
    peak = 0
    checksum = 0.0
    t0 = time.perf_counter()
    for b in range(bursts):
        sizes = [int(2 ** rng.uniform(16, 27.6)) // 4 for _ in range(rng.randint(8, 24))]
        if b % 2 == 0:
            blocks = [torch.full((n,), float(i % 7), device="cuda") for i, n in enumerate(sizes)]
            s = sum(float((x * 2 + keep_t[0][:1]).sum(dtype=torch.float64).item()) for x in blocks)
            torch.cuda.synchronize()
        else:
            blocks = [cp.full((n,), float(i % 7), dtype=cp.float32) for i, n in enumerate(sizes)]
            s = sum(float((x * 2 + keep_c[0][:1]).sum(dtype=cp.float64)) for x in blocks)
            cp.cuda.Device().synchronize()
        free, _ = cp.cuda.runtime.memGetInfo()
        peak = max(peak, total - free - baseline)
        checksum += s
        del blocks
    torch.cuda.synchronize()
    cp.cuda.Device().synchronize()
    wall = time.perf_counter() - t0
    row = {"mode": "shared tenor pool" if lib else "own pools", "bursts": bursts, "wall_s": wall,
           "peak_reserved_bytes": peak, "baseline_bytes": baseline, "checksum": checksum}
    if handle is not None:
        row["tenor_alloc"] = tenor_alloc.stats(handle)
    with open(out, "w") as f:
        json.dump(row, f, indent=1)
    print(row)


if __name__ == "__main__":
    main()
