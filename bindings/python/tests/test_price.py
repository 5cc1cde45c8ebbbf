"""Book pricing from Python equals `tenor price` bit for bit, from a path, a DataFrame and numpy
columns; bad input raises the documented exceptions with file, line and column."""

import csv
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import tenor
from conftest import need

# A small book of every kind the CLI prices (Monte Carlo rows included), from the example book
# plus a hand-made barrier with fixings, so the comparison covers mc rows too.
SMALL = """id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings,v0,kappa,theta,xi,rho
e1,european,call,100,100,1,0.05,0.02,0.2,,,,,,,,,
e2,european,put,100,90,0.5,0.03,0,0.25,,,,,,,,,
a1,american,put,100,100,1,0.05,0,0.3,,,,,,,,,
b1,barrier,call,100,100,1,0.05,0,0.2,120,up_out,0,,,,,,
b2,barrier,put,100,100,1,0.05,0,0.2,80,down_in,0,12,,,,,
g1,asian_geo,call,100,100,1,0.05,0,0.2,,,,12,,,,,
r1,asian_arith,call,100,100,1,0.05,0,0.2,,,,12,,,,,
h1,heston,call,100,100,1,0.03,0,,,,,,0.04,2,0.04,0.5,-0.7
"""


def cli_prices(tenor_bin, portfolio, out, *extra):
    r = subprocess.run([str(tenor_bin), "price", "--portfolio", str(portfolio), "--out", str(out), *extra],
                       capture_output=True, text=True)
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    return r, rows


def assert_same(df, rows):
    """Every cell equal: floats as the same double (the CLI writes shortest round-trip text)."""
    assert list(df.columns) == tenor.PRICE_COLUMNS
    assert len(df) == len(rows)
    for i, row in enumerate(rows):
        for c in tenor.PRICE_COLUMNS:
            got = df[c].iloc[i]
            want = row[c]
            if c in ("id", "method", "backend"):
                assert got == want, (i, c)
            elif want == "":
                assert np.isnan(got), (i, c, got)
            else:
                assert float(want) == got, (i, c, want, got)  # bitwise: same double


@pytest.fixture()
def small_book(tmp_path):
    p = tmp_path / "small.csv"
    p.write_text(SMALL)
    return p


def test_path_equals_cli_bit_for_bit(tenor_bin, small_book, tmp_path):
    r, rows = cli_prices(tenor_bin, small_book, tmp_path / "cli.csv", "--paths", "20000")
    assert r.returncode == 0, r.stderr
    assert {row["method"] for row in rows} == {"analytic", "pde", "mc"}
    df = tenor.open("cpu").price(small_book, paths=20000)
    assert_same(df, rows)


def test_engine_mc_on_sim_equals_cli(tenor_bin, small_book, tmp_path):
    r, rows = cli_prices(tenor_bin, small_book, tmp_path / "cli.csv", "--paths", "2000", "--engine", "mc",
                         "--backend", "sim", "--seed", "7", "--no-greeks")
    assert r.returncode == 0, r.stderr
    df = tenor.open("sim").price(small_book, paths=2000, engine="mc", seed=7, greeks=False)
    assert_same(df, rows)
    assert (df["backend"][df["method"] == "mc"] == "sim").all()


def test_example_book_equals_cli(tenor_bin, root, tmp_path):
    book = need(root / "examples" / "spx_book.csv")
    r, rows = cli_prices(tenor_bin, book, tmp_path / "cli.csv", "--paths", "2000")
    assert r.returncode == 0, r.stderr
    df = tenor.open("cpu").price(book, paths=2000)
    assert len(df) == 1946
    assert_same(df, rows)


def test_dataframe_and_numpy_equal_the_file(small_book):
    dev = tenor.open("cpu")
    from_file = dev.price(small_book, paths=2000)
    frame = pd.read_csv(small_book)
    from_frame = dev.price(frame, paths=2000)
    columns = {c: frame[c].to_numpy() for c in frame.columns}
    from_numpy = dev.price(columns, paths=2000)
    pd.testing.assert_frame_equal(from_file, from_frame, check_exact=True)
    pd.testing.assert_frame_equal(from_file, from_numpy, check_exact=True)


def test_put_call_parity_from_numpy_columns():
    # Independent check: C - P = S e^{-qT} - K e^{-rT}.
    s, k, t, r, q = 100.0, 95.0, 0.75, 0.04, 0.01
    book = {
        "id": np.array(["c", "p"]), "kind": ["european", "european"], "type": ["call", "put"],
        "spot": np.array([s, s]), "strike": np.array([k, k]), "maturity": np.array([t, t]),
        "rate": np.array([r, r]), "dividend": np.array([q, q]), "vol": np.array([0.2, 0.2]),
    }
    df = tenor.open("cpu").price(book)
    c, p = df["price"]
    assert abs((c - p) - (s * np.exp(-q * t) - k * np.exp(-r * t))) < 1e-12


def test_bad_cell_raises_input_error_with_location(tmp_path, tenor_bin):
    p = tmp_path / "bad.csv"
    p.write_text(SMALL.replace("e2,european,put,100,90,0.5,0.03,0,0.25", "e2,european,put,100,90,0.5,0.03,0,-0.25"))
    with pytest.raises(tenor.InputError) as info:
        tenor.open("cpu").price(p, paths=2000)
    e = info.value
    assert isinstance(e, tenor.TenorError)
    assert (e.file, e.line, e.column) == (str(p), 3, "vol")
    # the CLI's message for the same row
    r = subprocess.run([str(tenor_bin), "price", "--portfolio", str(p), "--paths", "2000", "--out",
                        str(tmp_path / "o.csv")], capture_output=True, text=True)
    assert r.returncode == 1
    cli_line = next(line for line in r.stderr.splitlines() if ":3:" in line)
    assert cli_line == "error: " + e.errors[0][3]
    # strict=False: the other rows are priced, as the CLI does
    df = tenor.open("cpu").price(p, paths=2000, strict=False)
    assert list(df["id"]) == ["e1", "a1", "b1", "b2", "g1", "r1", "h1"]
    assert df.attrs["errors"][0][:3] == (str(p), 3, "vol")


def test_bad_dataframe_cell_names_line_and_column():
    frame = pd.DataFrame({"id": ["x", "y"], "kind": ["european", "european"], "type": ["call", "call"],
                          "spot": [100.0, 100.0], "strike": [100.0, -1.0], "maturity": [1.0, 1.0],
                          "rate": [0.0, 0.0], "dividend": [0.0, 0.0], "vol": [0.2, 0.2]})
    with pytest.raises(tenor.InputError) as info:
        tenor.open("cpu").price(frame)
    assert (info.value.file, info.value.line, info.value.column) == ("<book>", 3, "strike")


def test_missing_file_and_bad_settings(tmp_path):
    dev = tenor.open("cpu")
    with pytest.raises(tenor.InputError) as info:
        dev.price(tmp_path / "nope.csv")
    assert info.value.file == str(tmp_path / "nope.csv") and info.value.line is None
    with pytest.raises(tenor.ParameterError) as info:
        dev.price(tmp_path / "nope.csv", paths=7)
    assert info.value.parameter == "paths" and "got 7" in str(info.value)
    with pytest.raises(tenor.ParameterError):
        dev.price(tmp_path / "nope.csv", engine="fast")
    with pytest.raises(tenor.BackendError) as info:
        tenor.open("no-such-backend")
    assert "no-such-backend" in str(info.value)


def test_backends_lists_cpu_and_sim():
    b = tenor.backends()
    got = dict(zip(b["name"], b["available"]))
    assert got["cpu"] and got["sim"]


GIL_CHILD = """
import os, sys, threading
import tenor

fifo, book = sys.argv[1], sys.argv[2]
os.mkfifo(fifo)
data = open(book, "rb").read()


def feed():
    # Opening a FIFO for writing waits for its reader: the pricing call, inside Rust. Writing
    # the book then needs this thread to run Python while that call is still going on.
    with open(fifo, "wb") as f:
        f.write(data)


t = threading.Thread(target=feed)
t.start()
out = tenor.open("cpu").price(fifo, paths=2000)
t.join()
print("priced", len(out))
"""


def test_gil_released_while_pricing(small_book, tmp_path):
    # The call reads its book from a FIFO that a second Python thread fills once the call has
    # opened it. The book arrives only if that thread can run Python while the call is inside
    # Rust, that is if the call released the GIL; holding it, the two would wait for each other
    # forever. Nothing is timed: the order is the FIFO's, and the child process's timeout only
    # turns such a deadlock into a failure instead of a hang (issue 29: this test wanted the
    # call to last over 0.05 s and another thread to tick 10 times meanwhile).
    r = subprocess.run(
        [sys.executable, "-c", GIL_CHILD, str(tmp_path / "book.fifo"), str(small_book)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    rows = sum(1 for _ in open(small_book)) - 1
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"priced {rows}", (r.stdout, r.stderr)


def test_pyarrow_in_and_out_equal_the_file(small_book):
    import pyarrow as pa  # pinned in the venv (scripts/python-venv): a missing one fails
    import pyarrow.csv as pacsv

    dev = tenor.open("cpu")
    from_file = dev.price(small_book, paths=2000)
    table = pacsv.read_csv(small_book)
    from_table = dev.price(table, paths=2000)
    pd.testing.assert_frame_equal(from_file, from_table, check_exact=True)
    batch = table.to_batches()[0]
    pd.testing.assert_frame_equal(from_file, dev.price(batch, paths=2000), check_exact=True)
    out = dev.price(small_book, paths=2000, output="arrow")
    assert isinstance(out, pa.Table) and out.column_names == tenor.PRICE_COLUMNS
    pd.testing.assert_frame_equal(from_file, out.to_pandas(), check_exact=True)
    assert b"tenor" in out.schema.metadata
    with pytest.raises(tenor.ParameterError) as e:
        dev.price(small_book, paths=2000, output="polars")
    assert e.value.parameter == "output"


def test_kinds_and_methods_are_the_tables_the_rows_use(small_book):
    """The kinds are the spec's (docs/portfolio-csv.md's `kind` row), and every method a priced
    book shows is one of the engine rows, Monte Carlo exactly where a standard error is given."""
    names = [k["name"] for k in tenor.kinds()]
    assert names == ["european", "american", "barrier", "asian_geo", "asian_arith", "heston"]
    by_method = {m["method"]: m for m in tenor.methods()}
    assert {m: by_method[m]["c_code"] for m in ("analytic", "pde", "mc", "lsm", "intrinsic")} == {
        "analytic": 0, "pde": 1, "mc": 2, "lsm": 4, "intrinsic": 5}
    df = tenor.open("cpu").price(small_book, paths=2000, seed=7)
    for method, stderr in zip(df["method"], df["stderr"]):
        assert by_method[method]["monte_carlo"] == (stderr == stderr and stderr is not None), method
