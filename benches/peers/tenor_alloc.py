#!/usr/bin/env python3
"""PyTorch and CuPy on one Tenor pool: installs libtenor_allocator.so (tools/allocator) as PyTorch's
CUDAPluggableAllocator and CuPy's CFunctionAllocator, then runs a script unchanged.

Usage: tenor_alloc.py LIB SCRIPT [ARGS...]   (LIB: path of libtenor_allocator.so)
Configuration: the TENOR_ALLOC_* variables (docs/allocators.md). Prints the shared allocator's
statistics (JSON, tenor_alloc_stats_json) to stderr at the end.
Import it for install(lib) and stats(handle) instead.
"""
import ctypes
import json
import runpy
import sys


def install(lib):
    """Routes every PyTorch and CuPy device allocation of this process to libtenor_allocator.so.
    Must run before either library allocates. Returns the ctypes handle (the same library
    PyTorch loaded: one allocator, one pool)."""
    import torch

    torch.cuda.memory.change_current_allocator(
        torch.cuda.memory.CUDAPluggableAllocator(lib, "tenor_torch_alloc", "tenor_torch_free"))
    so = ctypes.CDLL(lib)
    import cupy as cp

    malloc = ctypes.cast(so.tenor_cupy_malloc, ctypes.c_void_p).value
    free = ctypes.cast(so.tenor_cupy_free, ctypes.c_void_p).value
    cp.cuda.set_allocator(cp.cuda.memory.CFunctionAllocator(0, malloc, free, so).malloc)
    return so


def stats(so):
    """The shared allocator's statistics as a dict."""
    so.tenor_alloc_stats_json.restype = ctypes.c_ssize_t
    n = so.tenor_alloc_stats_json(None, ctypes.c_size_t(0))
    buf = ctypes.create_string_buffer(n + 1)
    so.tenor_alloc_stats_json(buf, ctypes.c_size_t(n + 1))
    return json.loads(buf.value.decode())


if __name__ == "__main__":
    lib, script = sys.argv[1], sys.argv[2]
    handle = install(lib)
    sys.argv = sys.argv[2:]
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        print("tenor_alloc stats:", json.dumps(stats(handle)), file=sys.stderr)
