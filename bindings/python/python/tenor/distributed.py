"""Tenor on a Dask cluster: books, sweeps and fleet certification over many worker processes
and machines, bit for bit one process (docs/distributed.md). Needs the ``distributed`` extra
(``pip install "tenor[distributed]"``: dask and distributed).

Quick start::

    from distributed import Client, LocalCluster
    import tenor, tenor.distributed as td

    client = Client(LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", security=True))
    td.setup(client, backend="cpu")                     # one backend per worker process
    prices = td.price("examples/spx_book.csv", paths=20_000)
    # == tenor.open("cpu").price("examples/spx_book.csv", paths=20_000), every double

How it works. The client reads and checks the whole book once (so duplicate ids, header
problems and line numbers are the whole file's) and plans chunks of about equal estimated cost
with the cost model of ``--backend cuda:*`` (``tenor_app::book::chunks``). Each chunk is a
Dask task with a key of its own; a worker prices it on the backend its process opened once
(``setup``), naming problems by the whole file's lines; the client puts the rows back in input
order and writes any output file itself, atomically. A row's value depends only on the trade
and the settings (one Philox seed, numbers indexed by (seed, path, step)), never on the chunk
or the worker, so the result is the one-process DataFrame bit for bit.

Failures. A worker that dies takes no result with it: the scheduler runs its chunks again
elsewhere and keeps one result per key (nothing lost, nothing twice). A chunk that kills every
worker that prices it (Dask's ``KilledWorker`` after ``distributed.scheduler.allowed-failures``
deaths) fails only its own rows, as row problems (raised as ``InputError`` under ``strict``,
in ``attrs["errors"]`` otherwise). Tenor's exceptions raised on a worker reach the client as
the same classes (``except tenor.InputError`` works).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

try:
    import dask.base
    import distributed
    from distributed import WorkerPlugin
    from distributed.scheduler import KilledWorker
except ImportError as e:  # pragma: no cover - the extra is missing
    raise ImportError(f'tenor.distributed needs dask and distributed: pip install "tenor[distributed]" ({e})') from e

import tenor
from tenor import BackendError, ParameterError, TenorError, _tenor

__all__ = ["Backend", "certify", "price", "setup", "sweep", "workers"]

# ---------------------------------------------------------------------------------------------
# On the workers: one open backend per process.

#: The backends this process opened, by name (filled by ``Backend.setup`` on a worker).
_DEVICES: "dict[str, tenor.Device]" = {}
_OPEN_LOCK = threading.Lock()


def _plugin_name(backend: str) -> str:
    return f"tenor-backend-{backend}"


def _version() -> str:
    from importlib.metadata import version

    return version("tenor")


def _device(backend: str) -> "tenor.Device":
    """This worker's open ``backend`` (opened now if the plugin did not: a worker started with
    the tasks already queued)."""
    dev = _DEVICES.get(backend)
    if dev is None:
        with _OPEN_LOCK:
            dev = _DEVICES.get(backend)
            if dev is None:
                dev = _DEVICES[backend] = tenor.open(backend)
    return dev


def _check_version(client_version: str) -> None:
    mine = _version()
    if mine != client_version:
        raise TenorError(
            f"this worker runs tenor {mine}, the client tenor {client_version}: install the same build on "
            "every worker (results are bitwise those of one process only for one build)"
        )


class Backend(WorkerPlugin):
    """Opens backend ``backend`` once in each worker process, when the worker starts (again
    after a restart: the scheduler gives every new or restarted worker its plugins), from the
    worker's environment (on a GPU node under dask-cuda, ``CUDA_VISIBLE_DEVICES`` names the
    worker's GPU, so ``cuda`` is that GPU). ``setup`` registers it; ``device`` or ``error``
    says how it went."""

    idempotent = True

    def __init__(self, backend: str):
        self.backend = backend
        self.device: Optional[str] = None
        self.error: Optional[str] = None

    async def setup(self, worker: Any) -> None:
        try:
            dev = await asyncio.to_thread(_device, self.backend)
        except TenorError as e:
            self.error = f"{type(e).__name__}: {e}"
            return
        self.device = f"{dev.backend}: {dev.name}"

    def teardown(self, worker: Any) -> None:
        _DEVICES.pop(self.backend, None)


def _worker_state(backend: str, dask_worker: Any = None) -> dict:
    plugin = dask_worker.plugins.get(_plugin_name(backend))
    return {
        "name": str(dask_worker.name),
        "threads": dask_worker.state.nthreads,
        "device": getattr(plugin, "device", None),
        "error": getattr(plugin, "error", None) if plugin is not None else "the plugin is not installed",
    }


# ---------------------------------------------------------------------------------------------
# On the client.


def _client(client: Any) -> "distributed.Client":
    if client is not None:
        return client
    try:
        return distributed.get_client()
    except ValueError as e:
        raise ParameterError(
            "client: no Dask client: pass client=Client(...) or create one first (docs/distributed.md)"
        ) from e


def _backend_name(backend: Any) -> str:
    if isinstance(backend, tenor.Device):
        raise tenor._parameter(
            "backend",
            f"backend: a tenor.Device cannot be sent to the workers (each opens its own); pass its name, "
            f"backend={backend.backend!r}",
        )
    if not isinstance(backend, str) or not backend:
        raise tenor._parameter("backend", f"backend {backend!r}: expected a backend name such as \"cpu\" or \"cuda\"")
    return backend


def _chunks(chunks: Optional[int], workers: int) -> int:
    if chunks is None:
        return 4 * max(1, workers)
    if isinstance(chunks, bool) or not isinstance(chunks, int) or chunks < 1:
        raise tenor._parameter("chunks", f"chunks {chunks!r}: expected a whole number >= 1")
    return chunks


def workers(client: Any = None, backend: str = "cpu") -> "Any":
    """The cluster's workers as ``backend`` sees them, one row per worker process: ``worker``
    (address), ``name``, ``threads``, ``device`` (what it opened, None if it could not) and
    ``error`` (why not)."""
    client = _client(client)
    states = client.run(_worker_state, _backend_name(backend))
    rows = [{"worker": a, **s} for a, s in sorted(states.items())]
    return tenor._pandas().DataFrame(rows, columns=["worker", "name", "threads", "device", "error"])


def setup(client: Any = None, backend: str = "cpu", *, retire: bool = False) -> "Any":
    """Opens ``backend`` once in every worker process of the cluster, now and whenever a
    worker starts or restarts (the ``Backend`` worker plugin; idempotent: ``price`` and
    ``sweep`` call it). Returns ``workers(client, backend)``.

    A worker that cannot open it (no GPU on that node, another driver) would fail the chunks
    sent to it: with ``retire=True`` such workers are retired from the cluster (and named in
    the log of the scheduler); otherwise ``BackendError`` names every one and its reason.
    Raises ``BackendError`` when the cluster has no worker, ``ParameterError`` for a ``Device``
    instead of a name (a device cannot travel)."""
    client = _client(client)
    backend = _backend_name(backend)
    client.register_plugin(Backend(backend), name=_plugin_name(backend))
    table = workers(client, backend)
    if table.empty:
        raise BackendError("the cluster has no worker yet (client.wait_for_workers(n) first)")
    failed = table[table["device"].isna()]
    if failed.empty:
        return table
    why = "; ".join(f"{r.worker} ({r.name}): {r.error}" for r in failed.itertuples())
    if not retire or len(failed) == len(table):
        raise BackendError(f"backend {backend!r} cannot be opened on {len(failed)} of {len(table)} workers: {why}")
    client.retire_workers(workers=list(failed["worker"]))
    return workers(client, backend)


def _run(client: Any, submit: Callable[[int], Any], sizes: Sequence[int], slots: int, progress: Any) -> list:
    """Runs chunks ``0..len(sizes)`` (``submit(i)`` makes chunk ``i``'s future) keeping at most
    ``slots`` (the workers' threads) in flight, and returns ``("ok", result)`` or ``("lost",
    reason)`` per chunk, in order: lost when the chunk killed every worker that ran it
    (``KilledWorker``). Any other exception of a chunk (a Tenor error raised on the worker, as
    its own class) is raised.

    This is what isolates a chunk that kills workers. The scheduler blames every task assigned
    to a worker that dies, not only the one it was running, and runs again the finished tasks
    whose results died with it; so nothing waits on a worker here (at most one chunk per
    thread is in flight) and each result is fetched as soon as it is ready and its task
    released (a death loses no finished chunk). A death then counts against the chunks that
    worker was running, and a chunk that keeps killing workers fails alone. The cost is one
    round trip between a chunk's end and the next one's start."""
    n = len(sizes)
    out: list = [None] * n
    waiting = iter(range(n))
    index: dict = {}
    running = distributed.as_completed(loop=client.loop, with_results=True, raise_errors=False)

    def start() -> None:
        i = next(waiting, None)
        if i is not None:
            f = submit(i)
            index[f.key] = i
            running.add(f)

    for _ in range(min(n, max(1, slots))):
        start()
    done, total = 0, sum(sizes)
    if callable(progress):
        progress(0, total)
    for f, value in running:
        i = index.pop(f.key)
        if f.status == "finished":
            out[i] = ("ok", value)
        else:
            _, exc, tb = value  # (type, exception, traceback) of a failed task
            if not isinstance(exc, KilledWorker):
                raise exc.with_traceback(tb)
            out[i] = ("lost", f"every worker that ran its chunk died ({getattr(exc, 'allowed_failures', '?')} "
                              f"allowed failures, task {f.key!r})")
        f.release()
        start()
        done += sizes[i]
        if callable(progress):
            progress(done, total)
    return out


def _text_progress(done: int, total: int) -> None:
    """``progress=True``: one line on stderr, rewritten as chunks finish."""
    import sys

    sys.stderr.write(f"\rtenor.distributed: {done}/{total} done" + ("\n" if done == total else ""))
    sys.stderr.flush()


def _check_progress(progress: Any, compute: bool) -> Any:
    """The progress callback ``_run`` calls (None for none)."""
    if progress not in (None, False, True) and not callable(progress):
        raise tenor._parameter("progress", "progress: expected None, True (a line on stderr) or a callable(done, total)")
    if progress and not compute:
        raise tenor._parameter(
            "progress", "progress needs compute=True; with compute=False watch the future (distributed.progress)"
        )
    return _text_progress if progress is True else progress or None


# ---------------------------------------------------------------------------------------------
# Books.


def _price_chunk(backend: str, version: str, file: str, text: str, lines: list, options: dict) -> tuple:
    """A worker's task: one chunk priced on this process's backend. Returns (columns,
    problems) named by the whole file's lines."""
    _check_version(version)
    columns, problems, _ = _device(backend)._native.price_csv(file, text, lines=lines, **options)
    return columns, problems


#: The output columns a chunk returns: ``tenor price``'s and each row's line.
_ROW_COLUMNS = tenor.PRICE_COLUMNS + ["line"]


def _gather_book(file: str, read_problems: list, planned: list, outcomes: list) -> "tuple[dict, list]":
    """The whole book's columns in input order (by line) and its problems (the whole file's
    read problems, then the refused and lost trades in input order) from the chunks'
    outcomes; ``planned``: (lines, labels) per chunk."""
    cols: "dict[str, list]" = {c: [] for c in _ROW_COLUMNS}
    failed: list = []
    for (lines, labels), (state, value) in zip(planned, outcomes):
        if state == "ok":
            columns, problems = value
            for c in _ROW_COLUMNS:
                cols[c].extend(columns[c])
            failed.extend(problems)
        else:
            failed.extend((file, line, None, f"{label}: not priced: {value}") for line, label in zip(lines, labels))
    order = sorted(range(len(cols["line"])), key=cols["line"].__getitem__)
    failed.sort(key=lambda p: p[1])
    return {c: [cols[c][i] for i in order] for c in _ROW_COLUMNS}, list(read_problems) + failed


def _run_book(client: Any, backend: str, version: str, file: str, planned: list, options: dict, token: str,
              slots: int, progress: Any) -> list:
    """The chunks' outcomes (``_run``): one task per planned chunk, keyed
    ``tenor-price-<token>-<i>``."""
    def submit(i: int) -> Any:
        chunk_text, lines, _, _ = planned[i]
        return client.submit(_price_chunk, backend, version, file, chunk_text, lines, options,
                             key=f"tenor-price-{token}-{i}")

    return _run(client, submit, [len(p[1]) for p in planned], slots, progress)


def _finish_book(backend: str, version: str, file: str, planned: list, options: dict, token: str, slots: int,
                 read_problems: list, rows_read: int, strict: bool, output: str) -> Any:
    """The task behind ``price(..., compute=False)``: submits the chunks from the worker
    (``worker_client``, seceded from the worker's threads), waits for them and assembles the
    result as the client would. Run again after its worker died, it submits the same keys."""
    with distributed.worker_client() as c:
        outcomes = _run_book(c, backend, version, file, planned, options, token, slots, None)
    columns, problems = _gather_book(file, read_problems, [(p[1], p[2]) for p in planned], outcomes)
    return tenor._price_result(columns, problems, rows_read, strict=strict, output=output, out=None)


def price(
    book: Any,
    *,
    client: Any = None,
    backend: str = "cpu",
    paths: int = 100_000,
    seed: int = 42,
    engine: str = "auto",
    steps: int = 64,
    streams: int = 1,
    greeks: bool = True,
    strict: bool = True,
    output: str = "pandas",
    out: Any = None,
    chunks: Optional[int] = None,
    compute: bool = True,
    progress: Union[None, bool, Callable[[int, int], Any]] = None,
) -> Any:
    """Prices a book on the cluster's workers: the same DataFrame (or pyarrow Table) as
    ``tenor.open(backend).price(book, ...)``, every double the same, for any number of workers
    and any chunking.

    ``book``, ``paths``, ``seed``, ``engine``, ``steps``, ``streams``, ``greeks``, ``strict``,
    ``output`` and ``out`` are ``Device.price``'s (a path is read by the client, which sends
    the trades: workers need not see the file; ``out`` is written by the client, atomically).
    ``client``: the Dask client (the current one when None). ``backend``: the name each worker
    opens (``setup`` is called if it was not). ``chunks``: how many chunks to cut the book into
    (of about equal estimated cost; 4 per worker when None). ``compute=False`` returns at
    once a ``distributed.Future`` of the result (no ``out``, no ``progress``). ``progress``:
    True for a line on stderr, or ``callable(done, total)`` called with the trades priced as
    chunks finish (the Dask dashboard shows the chunks' tasks too).

    Raises as ``Device.price`` (``InputError`` naming the whole file's lines, ``ParameterError``)
    and ``BackendError`` when no worker can open ``backend``. Rows of a chunk that killed every
    worker that priced it are row problems (see the module's docstring)."""
    client = _client(client)
    backend = _backend_name(backend)
    tenor._check_output(output)
    progress = _check_progress(progress, compute)
    if out is not None and not compute:
        raise tenor._parameter("out", "out is written by the client once the rows are there: it needs compute=True")
    file, text = tenor._book_source(book)
    if out is not None:
        tenor._check_out(out, file)
    options = dict(paths=paths, seed=seed, engine=engine, steps=steps, streams=streams, greeks=greeks)
    table = setup(client, backend)
    slots = int(table["threads"].sum())
    read_problems, rows_read, planned = _tenor.plan_book(file, text, _chunks(chunks, len(table)), **options)
    version = _version()
    token = dask.base.tokenize(backend, version, file, [c[0] for c in planned], [c[1] for c in planned], options)
    if not compute:
        return client.submit(_finish_book, backend, version, file, planned, options, token, slots, read_problems,
                             rows_read, strict, output, key=f"tenor-price-{token}-{int(strict)}-{output}-result")
    outcomes = _run_book(client, backend, version, file, planned, options, token, slots, progress)
    columns, problems = _gather_book(file, read_problems, [(p[1], p[2]) for p in planned], outcomes)
    return tenor._price_result(columns, problems, rows_read, strict=strict, output=output, out=out)


# ---------------------------------------------------------------------------------------------
# Sweeps.


def _bars(bars: list) -> list:
    """A task's copy of the sweep's bars (a task, not scattered data, so a worker that dies
    with it does not lose it: the scheduler runs it again)."""
    return bars


def _sweep_chunk(backend: str, version: str, strategy: str, bars: list, sets: list, costs: tuple,
                 insufficient_cash: str) -> list:
    """A worker's task: the runs of ``sets`` on this process's backend; (parameters, metrics
    or the reason the set could not run) each."""
    _check_version(version)
    runs = _tenor.run_sweep(strategy, bars, sets, _device(backend)._native, costs, insufficient_cash)
    return [(p, r if isinstance(r, str) else {"metrics": r["metrics"]}) for p, r in runs]


def _gather_sweep(sets: list, planned: list, outcomes: list) -> list:
    runs: list = [None] * len(sets)
    for indices, (state, value) in zip(planned, outcomes):
        for k, i in enumerate(indices):
            runs[i] = value[k] if state == "ok" else (sets[i], f"not run: {value}")
    return runs


def _run_sweep(client: Any, backend: str, version: str, strategy: str, bars: list, sets: list, planned: list,
               costs: tuple, insufficient_cash: str, token: str, slots: int, progress: Any) -> list:
    """The chunks' outcomes (``_run``): the bars as one task every chunk depends on, and one
    task per planned chunk."""
    shared = client.submit(_bars, bars, key=f"tenor-bars-{token}")

    def submit(k: int) -> Any:
        return client.submit(_sweep_chunk, backend, version, strategy, shared, [sets[i] for i in planned[k]], costs,
                             insufficient_cash, key=f"tenor-sweep-{token}-{k}")

    return _run(client, submit, [len(p) for p in planned], slots, progress)


def _finish_sweep(*args: Any) -> Any:
    """The task behind ``sweep(..., compute=False)``, as ``_finish_book``; ``args`` those of
    ``_run_sweep`` but the client and progress."""
    sets, planned = args[4], args[5]
    with distributed.worker_client() as c:
        outcomes = _run_sweep(c, *args, None)
    return tenor._sweep_frame(_gather_sweep(sets, planned, outcomes))


def sweep(
    strategy: str,
    data: Any,
    grid: Mapping[str, Iterable[float]],
    *,
    client: Any = None,
    backend: str = "cpu",
    params: Optional[Mapping[str, float]] = None,
    cash: float = 1_000_000.0,
    per_share: float = 0.0,
    commission_bps: float = 1.0,
    min_commission: float = 0.0,
    slippage_bps: float = 1.0,
    periods_per_year: float = 252.0,
    insufficient_cash: str = "refuse",
    chunks: Optional[int] = None,
    compute: bool = True,
    progress: Union[None, bool, Callable[[int, int], Any]] = None,
) -> Any:
    """``tenor.sweep`` on the cluster's workers: the same DataFrame (one row per parameter set,
    in grid order, the same metrics). The client reads and checks ``data`` (files or bars in
    memory, as ``tenor.backtest`` takes) once and sends the bars, so workers need not see the
    files. The sets are cut into ``chunks`` of about equal estimated cost (4 per worker
    when None); option strategies price on each worker's ``backend``. ``compute=False``
    returns a ``distributed.Future`` of the DataFrame; ``progress`` as ``price`` (runs done).
    A set whose chunk killed every worker that ran it has the reason in ``error``."""
    client = _client(client)
    backend = _backend_name(backend)
    progress = _check_progress(progress, compute)
    bars = [_tenor.load_bars(d) for d in tenor._data(data)]
    sets = _tenor.sweep_sets(tenor._axes(grid), tenor._params(params))
    costs = tenor._costs(cash, per_share, commission_bps, min_commission, slippage_bps, periods_per_year)
    table = setup(client, backend)
    slots = int(table["threads"].sum())
    planned = _tenor.plan_sweep(sets, _chunks(chunks, len(table))) if sets else []
    version = _version()
    token = dask.base.tokenize(backend, version, strategy, bars, sets, costs, insufficient_cash)
    args = (backend, version, strategy, bars, sets, planned, costs, insufficient_cash, token, slots)
    if not compute:
        return client.submit(_finish_sweep, *args, key=f"tenor-sweep-{token}-result")
    outcomes = _run_sweep(client, *args, progress)
    return tenor._sweep_frame(_gather_sweep(sets, planned, outcomes))


# ---------------------------------------------------------------------------------------------
# Certification.


#: What a fleet certification ships to every worker besides the baseline: the inputs of the
#: suite (``tenor_app::certify``), relative to the examples and the shared folders.
_SUITE_INPUTS = (("examples", "spx_book.csv"), ("examples", "data/spx_cboe_2025-10-01"), ("shared", "oracles"),
                 ("shared", "data/equities/spy_daily_1999_2020.csv"))


def _read_tree(root: str, rel: str, into: str, files: dict) -> None:
    """Adds the regular files under ``root/rel`` (one file, or a folder walked without
    following links) to ``files`` as ``into/rel/...`` -> bytes."""
    top = os.path.join(root, rel)
    if os.path.isfile(top) and not os.path.islink(top):
        with open(top, "rb") as f:
            files[f"{into}/{rel}"] = f.read()
        return
    for folder, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    files[f"{into}/{os.path.relpath(path, root)}"] = f.read()


def _write_tree(folder: str, files: dict) -> None:
    """Writes ``files`` (relative path -> bytes) under ``folder``, refusing any path that would
    leave it (absolute, or with ``..``): the names come from the client."""
    for rel, data in files.items():
        parts = rel.split("/")
        if os.path.isabs(rel) or any(p in ("", ".", "..") for p in parts):
            raise tenor._parameter("baseline", f"refused file name {rel!r} (outside the folder)")
        path = os.path.join(folder, *parts)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "xb") as f:
            f.write(data)


def _compare_here(files: dict, latency: str) -> "tuple[bool, str]":
    """``tenor compare`` in this process against the baseline in ``files``, the suite's inputs
    beside it, in a private temporary folder (removed after). Returns (promote, report)."""
    with tempfile.TemporaryDirectory(prefix="tenor-certify-") as folder:
        _write_tree(folder, files)
        return _tenor.compare(os.path.join(folder, "baseline"), os.path.join(folder, "examples"),
                              os.path.join(folder, "shared"), latency)


async def _certify_worker(version: str, files: dict, latency: str, dask_worker: Any = None) -> dict:
    """On a worker (``client.run``): compare on a thread, so the worker keeps answering."""
    try:
        _check_version(version)
        promote, report = await asyncio.to_thread(_compare_here, files, latency)
    except Exception as e:  # any failure to compare is a REJECT, with its reason
        return {"name": str(dask_worker.name), "verdict": "REJECT", "reason": f"{type(e).__name__}: {e}",
                "report": ""}
    # the report's summary line: "Values failing their rule: N; latency regressions: M; ..."
    reason = "" if promote else next((line for line in report.splitlines() if line.startswith("Values failing")),
                                     "the comparison rejects (see the report)")
    return {"name": str(dask_worker.name), "verdict": "PROMOTE" if promote else "REJECT", "reason": reason,
            "report": report}


def certify(client: Any, baseline: Any, *, latency: str = "report", examples: Any = "examples",
            shared: Any = None) -> Any:
    """Certifies every worker of the cluster against ``baseline`` (a folder written by ``tenor
    certify``): each worker process runs ``tenor compare`` (docs/certify.md) on its own device
    and build, and is promoted or rejected. Returns a DataFrame, one row per worker: ``worker``,
    ``name``, ``verdict`` ("PROMOTE" or "REJECT"), ``reason`` (empty on PROMOTE) and
    ``report`` (the comparison's Markdown report).

    Rejected workers are retired from the cluster, so no later work goes there, and their names
    are recorded on the scheduler (metadata ``["tenor", "rejected"]``: name -> reason). A worker
    that cannot run the comparison (another device model than the baseline's, another Tenor
    build, a crash) is rejected with the reason.

    The client reads the baseline and the suite's inputs (``examples``, the repository's
    examples folder, and ``shared``, the shared data folder: ``TENOR_SHARED`` or ``../shared``
    when None) and sends them; the workers need not see them. ``latency``: "report" (the
    default: many workers comparing at once on shared hosts move each other's timings; values
    decide) or "check" (a latency regression rejects, as ``tenor compare`` does by default).

    Raises ``ParameterError`` for a bad ``latency``, ``InputError`` for a baseline that is not
    a folder."""
    client = _client(client)
    if latency not in ("report", "check"):
        raise tenor._parameter("latency", f"latency {latency!r}: expected \"report\" or \"check\"")
    base = os.fspath(baseline)
    if not os.path.isdir(base):
        raise tenor._input(base, None, None, f"{base}: not a baseline folder (tenor certify --out writes one)")
    shared = os.environ.get("TENOR_SHARED", "../shared") if shared is None else os.fspath(shared)
    files: dict = {}
    _read_tree(base, ".", "baseline", files)
    for which, rel in _SUITE_INPUTS:
        root = os.fspath(examples) if which == "examples" else shared
        if os.path.exists(os.path.join(root, rel)):
            _read_tree(root, rel, which, files)
    verdicts = client.run(_certify_worker, _version(), files, latency, on_error="return")
    rows = []
    for address, v in sorted(verdicts.items()):
        if isinstance(v, BaseException):
            v = {"name": None, "verdict": "REJECT", "reason": f"the worker failed: {type(v).__name__}: {v}",
                 "report": ""}
        rows.append({"worker": address, **v})
    table = tenor._pandas().DataFrame(rows, columns=["worker", "name", "verdict", "reason", "report"])
    rejected = table[table["verdict"] == "REJECT"]
    if not rejected.empty:
        known = client.get_metadata(["tenor", "rejected"], default={}) or {}
        known.update({str(r.name): r.reason for r in rejected.itertuples()})
        client.set_metadata(["tenor", "rejected"], known)
        client.retire_workers(workers=list(rejected["worker"]))
    return table
