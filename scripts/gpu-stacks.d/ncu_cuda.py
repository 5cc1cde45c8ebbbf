"""Launches Tenor's own CUDA images of the fused Monte Carlo kernels (the cubins NVRTC wrote into
Tenor's CUDA kernel cache during the pilot run) through CuPy, once each, with the same launch
geometry as the CUDA adapter (grid ceil(pairs / 4096) blocks of 256 threads, manifest block
4096, adapters/cuda/src/nvrtc.rs) and the same arguments as adapters/sycl/benches/acpp_targets.cpp,
so that Nsight Compute can profile CUDA's kernels beside SYCL's (scripts/gpu-stacks.d/sycl.sh).

    python3 ncu_cuda.py CACHE_DIR [european_pairs] [asian_pairs]

Prints one line per kernel: its name, the cubin and the price from the partials."""
import glob
import math
import os
import sys

import cupy as cp
import numpy as np

cache = sys.argv[1]
eu_pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 26
as_pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
BLOCK, THREADS = 4096, 256
spot, strike, rate, vol, t = 100.0, 100.0, 0.05, 0.2, 1.0
steps = 252
dt = t / steps


def cubin(name):
    hits = sorted(glob.glob(os.path.join(cache, f"{name}-sm*.cubin")), key=os.path.getmtime)
    return hits[-1] if hits else None


def launch(name, pairs, per_block, args):
    path = cubin(name)
    if path is None:
        print(f"{name}: no cubin in {cache}")
        return
    fn = cp.RawModule(path=path).get_function(name)
    groups = (pairs + BLOCK - 1) // BLOCK
    partials = cp.zeros(groups * per_block, dtype=cp.float64)
    fn((groups,), (THREADS,), (partials,) + tuple(args))
    cp.cuda.Device().synchronize()
    p = partials.get().reshape(groups, per_block)
    print(f"{name}: {os.path.basename(path)} price {p[:, 0].sum() / pairs:.6f}")


u64, u32, f64, f32 = np.uint64, np.uint32, np.float64, np.float32
drift = (rate - 0.5 * vol * vol) * t
vst = vol * math.sqrt(t)
disc = math.exp(-rate * t)
seed = u64(42)
launch("mc_european", eu_pairs, 2, (seed, u64(eu_pairs), f64(spot), f64(strike), u32(1), f64(drift), f64(vst), f64(disc)))
launch("mc_european_f32", eu_pairs, 2,
       (seed, u64(eu_pairs), f32(spot), f32(strike), u32(1), f32(drift), f32(vst), f32(disc)))
ddt = (rate - 0.5 * vol * vol) * dt
vsd = vol * math.sqrt(dt)
launch("mc_asian", as_pairs, 5, (seed, u64(as_pairs), u32(steps), f64(spot), f64(strike), u32(1), u32(0), f64(ddt),
                                 f64(vsd), f64(ddt), f64(vsd), f64(disc)))
launch("mc_asian_f32", as_pairs, 5, (seed, u64(as_pairs), u32(steps), f32(spot), f32(strike), u32(1), u32(0), f32(ddt),
                                     f32(vsd), f32(ddt), f32(vsd), f32(disc)))
