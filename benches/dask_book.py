"""tenor.distributed against one process: the example book repeated ten times (unique ids) on a
loopback LocalCluster of 1 and 2 worker processes, wall time and the cost of a chunk
(docs/results/distributed-2026-12-05.md, docs/distributed.md).

usage (from the repository root, in a venv with the package and its [distributed] extra):
    python benches/dask_book.py [--copies 10] [--paths 20000] [--repeats 3] [--out results.json]

For each configuration: the wall time of ``tenor.distributed.price`` (planning on the client,
chunks on the workers, gathering; the cluster already started and its backend open), against
``tenor.open("cpu").price`` in this process, runs alternating; every distributed result is
checked bit for bit against the one-process DataFrame. The cost of a chunk is the slope of the
wall time over the chunk count on one worker (least squares over the chunk counts measured).
"""

import argparse
import csv
import json
import logging
import os
import statistics
import sys
import tempfile
import time

import numpy as np
from distributed import Client, LocalCluster

import tenor
import tenor.distributed as td


def repeated_book(src: str, copies: int, folder: str) -> str:
    """``src`` repeated ``copies`` times, ids suffixed ``~k`` (unique), in ``folder``."""
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    idx = header.index("id")
    path = os.path.join(folder, f"book_x{copies}.csv")
    with open(path, "x", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for k in range(copies):
            for r in body:
                r = list(r)
                r[idx] = f"{r[idx]}~{k}"
                w.writerow(r)
    return path


def same_bits(a, b) -> bool:
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False
    for c in a.columns:
        if a[c].dtype == np.float64:
            if not np.array_equal(a[c].to_numpy().view(np.int64), b[c].to_numpy().view(np.int64)):
                return False
        elif a[c].tolist() != b[c].tolist():
            return False
    return a.attrs == b.attrs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--paths", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    settings = dict(paths=args.paths)
    with tempfile.TemporaryDirectory(prefix="tenor-dask-bench-") as folder:
        book = repeated_book("examples/spx_book.csv", args.copies, folder)
        dev = tenor.open("cpu")
        t = time.perf_counter()
        reference = dev.price(book, **settings)
        print(f"book: {len(reference)} trades; one process (warm-up) {time.perf_counter() - t:.2f} s", flush=True)
        result = {"copies": args.copies, "trades": len(reference), "settings": settings, "cores": os.cpu_count(),
                  "load_before": os.getloadavg(), "runs": []}
        for workers, chunk_counts in ((1, [1, 4, 16, 64]), (2, [2, 8, 32])):
            t = time.perf_counter()
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address="127.0.0.1:0", security=True, silence_logs=logging.ERROR)
            client = Client(cluster)
            td.setup(client, "cpu")
            started = time.perf_counter() - t
            print(f"{workers} worker(s): cluster started and backend open in {started:.2f} s", flush=True)
            td.price(book, client=client, chunks=workers, **settings)  # warm-up: imports, first pricing
            for chunks in chunk_counts:
                one, dist = [], []
                for _ in range(args.repeats):
                    t = time.perf_counter()
                    dev.price(book, **settings)
                    one.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    got = td.price(book, client=client, chunks=chunks, **settings)
                    dist.append(time.perf_counter() - t)
                    if not same_bits(got, reference):
                        print("MISMATCH: the distributed result differs from one process", flush=True)
                        return 1
                row = {"workers": workers, "chunks": chunks, "cluster_start_s": started, "one_process_s": one,
                       "distributed_s": dist, "one_median_s": statistics.median(one),
                       "distributed_median_s": statistics.median(dist)}
                result["runs"].append(row)
                print(f"  chunks {chunks:3d}: one process {statistics.median(one):7.2f} s  distributed "
                      f"{statistics.median(dist):7.2f} s  ({', '.join(f'{x:.2f}' for x in dist)}); bitwise equal",
                      flush=True)
            client.close()
            cluster.close()
        ones = [r for r in result["runs"] if r["workers"] == 1]
        x = np.array([r["chunks"] for r in ones], dtype=float)
        y = np.array([r["distributed_median_s"] for r in ones])
        slope, intercept = np.polyfit(x, y, 1)
        result["per_chunk_s"], result["fixed_s"] = slope, intercept
        result["load_after"] = os.getloadavg()
        print(f"one worker: wall = {intercept:.3f} s + {1000 * slope:.1f} ms x chunks (least squares)")
        print(f"load average before {result['load_before']}, after {result['load_after']}")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
