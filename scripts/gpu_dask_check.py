"""The check behind scripts/gpu-dask: the example book priced by tenor.distributed on a cluster
with one worker process per device equals `tenor price --backend B:*` (every device of the
host through one process) byte for byte, for one chunk per worker and for four.

usage: python scripts/gpu_dask_check.py BOOK CLI_CSV OUT_DIR
environment:
  GPU_DASK_CLUSTER  "cuda" (dask-cuda's LocalCUDACluster: one worker per GPU, each with its
                    own CUDA_VISIBLE_DEVICES) or "local" (a LocalCluster of GPU_DASK_WORKERS
                    processes: how it is tried on a machine without GPUs)
  GPU_DASK_BACKEND  the backend each worker opens ("cuda"; "cpu" or "sim" here)
  GPU_DASK_WORKERS  workers of the local cluster (default 2)
  GPU_DASK_ARGS     the pricing settings, as given to `tenor price` (the same string)

Writes OUT_DIR/dask.json (workers, timings, verdicts) and OUT_DIR/dask_*.csv; exits 1 when a
result differs from the command's.
"""

import json
import logging
import os
import pathlib
import sys
import time


def settings(args: str) -> dict:
    """`tenor price` flags as tenor.distributed.price keywords."""
    words = args.split()
    out: dict = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--no-greeks":
            out["greeks"] = False
        elif w in ("--engine", "--paths", "--seed", "--steps", "--streams"):
            v = words[i + 1]
            out[w[2:]] = v if w == "--engine" else int(v)
            i += 1
        else:
            raise SystemExit(f"gpu_dask_check: unsupported flag {w}")
        i += 1
    return out


def main() -> int:
    book, cli_csv, out_dir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    kind = os.environ.get("GPU_DASK_CLUSTER", "cuda")
    backend = os.environ.get("GPU_DASK_BACKEND", "cuda")
    options = settings(os.environ.get("GPU_DASK_ARGS", ""))
    from distributed import Client, LocalCluster

    import tenor
    import tenor.distributed as td

    t = time.perf_counter()
    if kind == "cuda":
        from dask_cuda import LocalCUDACluster

        cluster = LocalCUDACluster(host="127.0.0.1", dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
    else:
        cluster = LocalCluster(n_workers=int(os.environ.get("GPU_DASK_WORKERS", "2")), threads_per_worker=1,
                               host="127.0.0.1", dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
    client = Client(cluster)
    table = td.setup(client, backend)
    started = time.perf_counter() - t
    print(f"cluster ({kind}) of {len(table)} workers started and {backend} opened in {started:.2f} s")
    envs = client.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES", "unset"))
    for r in table.itertuples():
        print(f"  {r.worker} ({r.name}): {r.device}; CUDA_VISIBLE_DEVICES={envs.get(r.worker)}")
    report = {"cluster": kind, "backend": backend, "settings": options, "workers": table.to_dict("records"),
              "cuda_visible_devices": envs, "cluster_start_s": started, "runs": []}
    want = cli_csv.read_bytes()
    status = 0
    td.price(book, client=client, backend=backend, chunks=len(table), **options)  # warm-up: kernels compiled and cached
    for per_worker in (1, 4):
        chunks = per_worker * len(table)
        out = out_dir / f"dask_{chunks}.csv"
        t = time.perf_counter()
        td.price(book, client=client, backend=backend, chunks=chunks, out=out, **options)
        wall = time.perf_counter() - t
        same = out.read_bytes() == want
        status |= 0 if same else 1
        report["runs"].append({"chunks": chunks, "wall_s": wall, "equal_to_cli": same})
        print(f"chunks {chunks}: {wall:.3f} s; {'byte for byte' if same else 'DIFFERENT from'} the command's output")
    client.close()
    cluster.close()
    (out_dir / "dask.json").write_text(json.dumps(report, indent=1, default=str))
    return status


if __name__ == "__main__":
    sys.exit(main())
