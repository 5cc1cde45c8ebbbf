"""tenor.distributed against one process: the example book repeated ten times (unique ids) on a
loopback LocalCluster of 1 and 2 worker processes, wall time and the cost of a chunk
(docs/results/distributed-2026-12-05.md, docs/distributed.md).

usage (from the repository root, in a venv with the package and its [distributed] extra):
    python benches/dask_book.py [--copies 10] [--paths 2000] [--repeats 3] [--out results.json]

For 1 and 2 workers: the wall time of ``tenor.distributed.price`` (planning on the client,
chunks on the workers, gathering; the cluster already started and its backend open) with one
and four chunks per worker, against ``tenor.open("cpu").price`` in this process, runs
alternating (the ratio of each pair, so that the machine's load moves both sides alike); every
distributed result is checked bit for bit against the one-process DataFrame. The cost of a
chunk: 64 closed-form trades (no work to speak of) in 1 and in 64 chunks, the difference of the
median walls over 63.
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


def timed(f) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--paths", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    settings = dict(paths=args.paths)
    with tempfile.TemporaryDirectory(prefix="tenor-dask-bench-") as folder:
        book = repeated_book("examples/spx_book.csv", args.copies, folder)
        tiny = os.path.join(folder, "tiny.csv")
        with open("examples/spx_book.csv") as f, open(tiny, "x") as g:
            g.writelines(f.readlines()[:65])  # the header and 64 closed-form trades
        dev = tenor.open("cpu")
        t = time.perf_counter()
        reference = dev.price(book, **settings)
        tiny_reference = dev.price(tiny, **settings)
        print(f"book: {len(reference)} trades; one process (warm-up) {time.perf_counter() - t:.2f} s", flush=True)
        result = {"copies": args.copies, "trades": len(reference), "settings": settings, "cores": os.cpu_count(),
                  "load_before": os.getloadavg(), "book": [], "overhead": []}
        for workers in (1, 2):
            t = time.perf_counter()
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address="127.0.0.1:0", security=True, silence_logs=logging.ERROR)
            client = Client(cluster)
            td.setup(client, "cpu")
            started = time.perf_counter() - t
            print(f"{workers} worker(s): cluster started and backend open in {started:.2f} s", flush=True)
            td.price(book, client=client, chunks=workers, **settings)  # warm-up: imports, first pricing
            for chunks in (workers, 4 * workers):
                one, dist = [], []
                for _ in range(args.repeats):
                    one.append(timed(lambda: dev.price(book, **settings)))
                    got = None

                    def run():
                        nonlocal got
                        got = td.price(book, client=client, chunks=chunks, **settings)

                    dist.append(timed(run))
                    if not same_bits(got, reference):
                        print("MISMATCH: the distributed result differs from one process", flush=True)
                        return 1
                ratios = [d / o for d, o in zip(dist, one)]
                row = {"workers": workers, "chunks": chunks, "cluster_start_s": started, "one_process_s": one,
                       "distributed_s": dist, "ratio_median": statistics.median(ratios)}
                result["book"].append(row)
                print(f"  chunks {chunks:3d}: one process {statistics.median(one):6.2f} s, distributed "
                      f"{statistics.median(dist):6.2f} s; paired ratio median {statistics.median(ratios):.3f} "
                      f"({', '.join(f'{r:.3f}' for r in ratios)}); bitwise equal", flush=True)
            # the cost of a chunk: 64 trades of closed forms (no work to speak of) in 1 or 64 chunks
            walls = {}
            for chunks in (1, 64):
                walls[chunks] = []
                for _ in range(2 * args.repeats + 1):
                    got = None

                    def run():
                        nonlocal got
                        got = td.price(tiny, client=client, chunks=chunks, **settings)

                    walls[chunks].append(timed(run))
                    if not same_bits(got, tiny_reference):
                        print("MISMATCH on the small book", flush=True)
                        return 1
            per_chunk = (statistics.median(walls[64]) - statistics.median(walls[1])) / 63
            result["overhead"].append({"workers": workers, "walls_s": walls, "per_chunk_s": per_chunk})
            print(f"  64 trades: 1 chunk {1000 * statistics.median(walls[1]):.1f} ms, 64 chunks "
                  f"{1000 * statistics.median(walls[64]):.1f} ms (medians of {len(walls[1])}): "
                  f"{1000 * per_chunk:.2f} ms per chunk", flush=True)
            client.close()
            cluster.close()
        result["load_after"] = os.getloadavg()
        print(f"load average before {result['load_before']}, after {result['load_after']}")
        if args.out:
            with open(args.out, "w") as f:
                json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
