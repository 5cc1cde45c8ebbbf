"""The pilot from Python: ``tenor.pilot.run(["cpu", "sim"], suite="quick")`` measures
throughput, scaling, cold and warm timings, adapter-swap cost and agreement on each backend,
as ``tenor pilot run`` (docs/pilot.md), and returns the report (the command's report.json) as
a dict. Unavailable backends are listed with the reason in ``report["env"]["backends"]`` and
not measured. The GIL is released while it runs."""

from __future__ import annotations

import json
from typing import Sequence

from . import _tenor


def run(backends: Sequence[str] = ("cpu",), suite: str = "quick", max_mib: int = 1024) -> dict:
    """Runs the pilot's workloads (``suite`` "quick" or "default") on ``backends`` with at most
    ``max_mib`` MiB per workload. Raises ``ParameterError`` for a bad suite or size and
    ``BackendError`` when a measurement fails on a backend."""
    return json.loads(_tenor.pilot_run(list(backends), suite, int(max_mib)))
