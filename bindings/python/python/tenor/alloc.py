"""The allocation toolkit on a trace file (``tenor-alloc trace v1``, docs/allocators.md):
``profile``, ``replay`` and ``advise`` compute what ``tenor alloc profile|replay|advise
--trace FILE`` print, with the same library code; sizes in bytes (the command line prints MiB).

Raises ``InputError`` (``file``, ``line``, ``column``: the 1-based field) for an unreadable or
malformed trace or one without an alloc event.
"""

from __future__ import annotations

import os
from typing import Any, Union

from . import _tenor

__all__ = ["advise", "profile", "replay"]


def profile(trace: Union[str, "os.PathLike[str]"]) -> dict:
    """Sizes, lifetimes, streams and per-job high watermarks of the trace (``tenor alloc
    profile``): a dict with events, allocations, frees, peak_used_bytes, distinct_sizes,
    p5_bytes, p50_bytes, p95_bytes, max_bytes, small_share (< 1 MiB), short_lived_share (freed
    within 64 allocator calls), streams, threads, histogram ({k: allocations of 2^k ..
    2^(k+1) bytes}) and job_peaks ({job: bytes}; job 0 = outside any job)."""
    return dict(_tenor.alloc_profile(os.fspath(trace)))


def replay(trace: Union[str, "os.PathLike[str]"], *, opportunistic: bool = False, sync_every: int = 16) -> "Any":
    """Replays the trace against every strategy on the simulated device (``tenor alloc
    replay``; ``opportunistic`` and ``sync_every`` are its options). Returns a DataFrame, one
    row per strategy: strategy, configuration, reserved_bytes, used_bytes (peaks), overhead
    (reserved/used), fragmentation_mean, fragmentation_max, waits, ns_per_op (timing),
    failures, hazards (count) and left_reserved (bytes still reserved at the end)."""
    import pandas

    return pandas.DataFrame(_tenor.alloc_replay(os.fspath(trace), bool(opportunistic), int(sync_every)))


def advise(trace: Union[str, "os.PathLike[str]"]) -> dict:
    """The recommended strategy for the trace (``tenor alloc advise``) from its profile and a
    pool replay: a dict with choice (the strategy's description), reasons, bin_exponents
    (lo, hi), classes (slab class sizes in bytes) and job_cap (bytes; None without jobs)."""
    return dict(_tenor.alloc_advise(os.fspath(trace)))
