"""tenor.distributed on a real loopback Dask cluster (LocalCluster, worker processes with
nannies, TLS with a temporary certificate, host 127.0.0.1): results equal to one process, bit
for bit, for 1 and 2 workers and several chunk counts; a worker killed mid-job by a test hook
(result identical and complete); a chunk that kills every worker (only its rows fail); errors
of the whole file named by its lines; Tenor's exceptions crossing processes as their own class.

The one-process result (``tenor.open(...).price``, ``tenor.sweep``) is the oracle: the CLI
tests check it against ``tenor price``, and here ``out=`` against ``tenor price --out``."""

import logging
import os
import pickle
import subprocess
import sys

import cloudpickle
import dask
import numpy as np
import pandas as pd
import pytest
from distributed import Client, Future, LocalCluster, WorkerPlugin, wait

import tenor
import tenor.distributed as td

from conftest import need

# The test hook below is sent to the workers by value (this module is not importable there).
cloudpickle.register_pickle_by_value(sys.modules[__name__])

# Small settings keep the cost low: every closed form of the example book and its Monte Carlo
# rows (the arithmetic Asians under "auto"; every row under "mc") at a few thousand paths.
AUTO = dict(paths=2000)
MC = dict(paths=1000, engine="mc", steps=16, greeks=False)


def _cluster(workers):
    # One failure allowed: a chunk that kills two workers is lost (the default, 3, would cost
    # four worker restarts in the poison test).
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0", security=True, silence_logs=logging.ERROR)
    return cluster, Client(cluster)


@pytest.fixture(scope="module")
def two():
    cluster, client = _cluster(2)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def one():
    cluster, client = _cluster(1)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def book(root):
    return need(root / "examples" / "spx_book.csv")


@pytest.fixture(scope="module")
def reference(book):
    dev = tenor.open("cpu")
    return {"auto": dev.price(book, **AUTO), "mc": dev.price(book, **MC)}


def assert_bitwise(got, want):
    """Same columns, rows and attrs; every float the same bits (0.0 and -0.0 differ, NaN
    equals NaN only with the same payload)."""
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    for c in want.columns:
        if want[c].dtype == np.float64:
            assert got[c].dtype == np.float64, c
            np.testing.assert_array_equal(got[c].to_numpy().view(np.int64), want[c].to_numpy().view(np.int64), err_msg=c)
        else:
            assert got[c].tolist() == want[c].tolist(), c
    assert got.attrs == want.attrs


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("chunks", [1, 3, 8])
def test_a_book_equals_one_process_for_any_workers_and_chunks(request, book, reference, workers, chunks):
    client = request.getfixturevalue({1: "one", 2: "two"}[workers])
    for settings, mode in ((AUTO, "auto"), (MC, "mc")):
        got = td.price(book, client=client, chunks=chunks, **settings)
        assert_bitwise(got, reference[mode])


def test_sweep_equals_one_process_for_any_workers_and_chunks(one, two, shared):
    spy = need(shared / "data/equities/spy_daily_1999_2020.csv")
    grid = {"fast": [10, 20, 50], "slow": [20, 100]}  # fast >= slow: two sets cannot run
    want = tenor.sweep("sma_crossover", spy, grid)
    assert (want["error"] != "").sum() == 2
    for client, chunks in ((one, 2), (two, 1), (two, 5)):
        assert_bitwise(td.sweep("sma_crossover", spy, grid, client=client, chunks=chunks), want)
    # an option strategy pricing on each worker's device, from bars in memory
    bars = tenor.read_bars(spy).tail(120)
    grid = {"window": [10, 20], "roll": [5, 21]}
    params = {"paths": 256}
    want = tenor.sweep("short_straddle", bars, grid, params=params)
    assert (want["error"] == "").all()
    assert_bitwise(td.sweep("short_straddle", bars, grid, params=params, client=two, chunks=3), want)


def test_compute_false_gives_a_future_of_the_same_result(two, book, reference, capfd):
    fut = td.price(book, client=two, chunks=4, compute=False, **AUTO)
    assert isinstance(fut, Future)
    assert_bitwise(fut.result(), reference["auto"])
    assert_bitwise(td.price(book, client=two, chunks=2, progress=True, **AUTO), reference["auto"])
    assert capfd.readouterr().err.endswith("tenor.distributed: 1946/1946 done\n")


def test_out_is_written_by_the_client_as_tenor_price_writes_it(two, book, tenor_bin, tmp_path):
    cli = tmp_path / "cli.csv"
    subprocess.run([str(tenor_bin), "price", "--portfolio", str(book), "--paths", "2000", "--out", str(cli)],
                   check=True, capture_output=True)
    out = tmp_path / "dask.csv"
    seen = []
    td.price(book, client=two, chunks=5, out=out, progress=lambda done, total: seen.append((done, total)), **AUTO)
    assert out.read_bytes() == cli.read_bytes()
    assert seen[0] == (0, 1946) and seen[-1] == (1946, 1946) and len(seen) == 6
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


class KillOnExecute(WorkerPlugin):
    """Test hook: the worker process that starts executing a task whose key ends with
    ``suffix`` exits at once (os._exit, as a crash or the OOM killer would end it). With
    ``once`` only the first one does: it creates ``marker`` exclusively first, and a worker
    that finds it there runs the task."""

    def __init__(self, suffix, marker, once):
        self.suffix, self.marker, self.once = suffix, str(marker), once

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or not str(key).startswith("tenor-price-") or not str(key).endswith(self.suffix):
            return
        try:
            fd = os.open(self.marker if self.once else f"{self.marker}.{os.getpid()}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            return
        os.close(fd)
        os._exit(1)


def _addresses(client):
    return set(client.scheduler_info()["workers"])


def test_a_worker_killed_mid_job_loses_and_duplicates_nothing(two, book, reference, tmp_path):
    before = _addresses(two)
    marker = tmp_path / "killed"
    two.register_plugin(KillOnExecute("-3", marker, once=True), name="kill-once")
    try:
        got = td.price(book, client=two, chunks=6, **AUTO)
    finally:
        two.unregister_worker_plugin("kill-once")
    assert marker.exists(), "the hook killed a worker"
    assert_bitwise(got, reference["auto"])  # every row once, in order, the same bits
    two.wait_for_workers(2, timeout=60)
    assert _addresses(two) != before, "a worker process was replaced"
    # the restarted worker opened the backend again and gets chunks
    assert td.workers(two)["device"].notna().all()


def test_a_chunk_that_keeps_killing_workers_fails_only_its_rows(two, book, reference, tmp_path):
    options = dict(chunks=4, **AUTO)
    _, _, planned = tenor._tenor.plan_book(str(book), None, 4, **AUTO)
    lost = planned[2][1]  # the whole file's lines of chunk 2
    two.register_plugin(KillOnExecute("-2", tmp_path / "poison", once=False), name="poison")
    try:
        got = td.price(book, client=two, strict=False, **options)
    finally:
        two.unregister_worker_plugin("poison")
    assert len(list(tmp_path.glob("poison.*"))) == 2, "two workers died on the chunk (allowed-failures 1)"
    want = reference["auto"]
    every = sorted(line for chunk in planned for line in chunk[1])  # the line of each row of `want`
    kept = want[[line not in set(lost) for line in every]]
    problems = got.attrs["errors"]
    assert [p[1] for p in problems] == lost
    assert all(p[0] == str(book) and "not priced: every worker that ran its chunk died" in p[3] for p in problems)
    assert problems[0][3].startswith(f'{book}:{lost[0]}: trade "')
    got.attrs, kept.attrs = {}, {}
    assert_bitwise(got.reset_index(drop=True), kept.reset_index(drop=True))
    two.wait_for_workers(2, timeout=60)


def test_an_input_error_deep_in_a_book_names_the_whole_files_line(two, book, tmp_path):
    lines = book.read_text().splitlines()
    deep = 1800
    cells = lines[deep - 1].split(",")
    header = lines[0].split(",")
    cells[header.index("vol")] = "-0.2"
    lines[deep - 1] = ",".join(cells)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(tenor.InputError) as one_process:
        tenor.open("cpu").price(bad, **AUTO)
    with pytest.raises(tenor.InputError) as e:
        td.price(bad, client=two, chunks=4, **AUTO)
    assert (e.value.file, e.value.line, e.value.column) == (str(bad), deep, "vol")
    assert str(e.value) == str(one_process.value) and e.value.errors == one_process.value.errors
    # a duplicate id far from its first use is found: the whole file is read on the client
    dup = book.read_text().splitlines()
    dup[1899] = lines[2].split(",")[0] + "," + ",".join(lines[1899].split(",")[1:])
    bad.write_text("\n".join(dup) + "\n")
    with pytest.raises(tenor.InputError) as e:
        td.price(bad, client=two, chunks=4, **AUTO)
    first = lines[2].split(",")[0]
    assert (e.value.line, e.value.column) == (1900, "id")
    assert str(e.value).endswith(f"duplicate id {first!r} (first used on line 3)".replace("'", '"'))


def test_tenor_errors_raised_on_a_worker_are_caught_as_their_class(two):
    def spoiled():
        frame = pd.DataFrame({"id": ["a"], "kind": ["european"], "type": ["call"], "spot": [100.0], "strike": [100.0],
                              "maturity": [1.0], "rate": [0.01], "vol": [-0.2]})
        return tenor.open("cpu").price(frame)

    with pytest.raises(tenor.InputError) as e:
        two.submit(spoiled, pure=False).result()
    assert type(e.value) is tenor.InputError
    assert (e.value.file, e.value.line, e.value.column) == ("<book>", 2, "vol")
    # the same in one process, without a cluster: a pickled copy is the same class
    err = pickle.loads(pickle.dumps(e.value))
    assert type(err) is tenor.InputError and err.errors == e.value.errors
    assert isinstance(pickle.loads(pickle.dumps(tenor.ParameterError("x"))), tenor.TenorError)


def test_a_device_cannot_travel_and_says_what_to_do(two):
    dev = tenor.open("cpu")
    with pytest.raises(TypeError, match="cannot be sent to another process.*tenor.distributed.setup"):
        pickle.dumps(dev)
    with pytest.raises(tenor.ParameterError, match="backend='cpu'") as e:
        td.price({"id": []}, client=two, backend=dev)
    assert e.value.parameter == "backend"
    # Dask wraps a serialisation failure in its own TypeError; ours is its cause, printed first
    with pytest.raises(TypeError) as e:
        two.submit(lambda d: d.backend, dev).result()
    assert "cannot be sent to another process" in str(e.value.__cause__)


def test_setup_reports_each_worker_and_refuses_a_backend_no_worker_has(two):
    table = td.setup(two, "sim")
    assert len(table) == 2 and table["device"].str.startswith("sim").all() and table["error"].isna().all()
    with pytest.raises(tenor.BackendError, match="backend 'nope' cannot be opened on 2 of 2 workers: .*BackendError"):
        td.setup(two, "nope")


def test_settings_are_refused_on_the_client_before_any_work(two, book, tmp_path):
    with pytest.raises(tenor.ParameterError) as e:
        td.price(book, client=two, out=book, **AUTO)  # would replace the book by its prices
    assert e.value.parameter == "out"
    with pytest.raises(tenor.ParameterError) as e:
        td.price(book, client=two, out=tmp_path / "x.csv", compute=False, **AUTO)
    assert e.value.parameter == "out"
    for bad in (0, -1, 2.5, True):
        with pytest.raises(tenor.ParameterError) as e:
            td.price(book, client=two, chunks=bad, **AUTO)
        assert e.value.parameter == "chunks"
    with pytest.raises(tenor.ParameterError) as e:
        td.price(book, client=two, paths=7)
    assert e.value.parameter == "paths"
    with pytest.raises(tenor.InputError) as e:
        td.price(tmp_path / "missing.csv", client=two)
    assert e.value.file == str(tmp_path / "missing.csv")



class SpoilInputs(WorkerPlugin):
    """Test hook: the worker named ``name`` computes differently from the others (as a node with
    another driver would): the book its comparison reads has one strike changed."""

    def __init__(self, name):
        self.name = name

    def setup(self, worker):
        if str(worker.name) != self.name:
            return
        import tenor.distributed as mod

        write = mod._write_tree

        def spoiled(folder, files):
            files = dict(files)
            book = files["examples/spx_book.csv"].decode().split("\n")
            header = book[0].split(",")
            cells = book[1].split(",")
            cells[header.index("strike")] = str(float(cells[header.index("strike")]) + 1)
            book[1] = ",".join(cells)
            files["examples/spx_book.csv"] = "\n".join(book).encode()
            write(folder, files)

        mod._write_tree = spoiled


def test_certify_promotes_or_rejects_each_worker_and_retires_the_rejected(root, shared, tenor_bin, book, tmp_path):
    baseline = tmp_path / "baseline"
    subprocess.run([str(tenor_bin), "certify", "--backend", "cpu", "--suite", "quick", "--out", str(baseline),
                    "--examples", str(root / "examples"), "--shared", str(shared)], check=True, capture_output=True)
    cluster, client = _cluster(2)  # its own cluster: certify retires workers
    try:
        client.register_plugin(SpoilInputs("1"), name="spoil")
        table = td.certify(client, baseline, examples=root / "examples", shared=shared).set_index("name")
        assert table.loc["0", "verdict"] == "PROMOTE" and table.loc["0", "reason"] == ""
        assert table.loc["0", "report"].startswith("# tenor compare: PROMOTE")
        assert table.loc["1", "verdict"] == "REJECT"
        assert table.loc["1", "reason"].startswith("Values failing their rule: ") and "| book |" in table.loc["1", "report"]
        # the rejected worker is named on the scheduler and left out: retired from the cluster
        assert list(client.get_metadata(["tenor", "rejected"])) == ["1"]
        assert td.workers(client)["name"].tolist() == ["0"]
        got = td.price(book, client=client, chunks=3, **AUTO)
        assert_bitwise(got, tenor.open("cpu").price(book, **AUTO))
        with pytest.raises(tenor.InputError):
            td.certify(client, tmp_path / "no-baseline")
    finally:
        client.close()
        cluster.close()
