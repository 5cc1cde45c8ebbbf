"""Backtests from Python: a Python strategy gives the Rust engine's fills and equity for the
same strategy on the same data; the Context sees no bar after the current one; bad data raises
InputError with file, line and column."""

import pandas as pd
import pytest

import tenor
from conftest import need


class PySmaCrossover:
    """The built-in sma_crossover (backtest/src/strategies/sma_crossover.rs) re-written in
    Python: long when the fast SMA of closes is above the slow one, flat otherwise."""

    def __init__(self, fast=50, slow=200):
        self.fast, self.slow, self.closes = fast, slow, []
        self.name = f"py_sma({fast},{slow})"

    def on_bar(self, ctx):
        b = ctx.bar(0)
        if b is None:
            return
        self.closes.append(b.close)
        n = len(self.closes)
        if n < self.slow or ctx.open_orders():
            return
        fast = sum(self.closes[n - self.fast:]) / self.fast
        slow = sum(self.closes[n - self.slow:]) / self.slow
        held = ctx.position(0)
        if fast > slow and held == 0.0:
            import math
            ctx.order(0, math.floor(ctx.equity() * 0.99 / b.close))
        elif not fast > slow and held > 0.0:
            ctx.order(0, -held)


@pytest.fixture(scope="module")
def spy(shared):
    return need(shared / "data" / "equities" / "spy_daily_1999_2020.csv")


def test_python_sma_equals_rust_sma(spy):
    rust = tenor.backtest("sma_crossover", spy, params={"fast": 20, "slow": 100})
    py = tenor.backtest(PySmaCrossover(20, 100), spy)
    assert len(rust.fills) > 10
    pd.testing.assert_frame_equal(py.fills, rust.fills, check_exact=True)
    pd.testing.assert_frame_equal(py.equity, rust.equity, check_exact=True)
    assert py.metrics == rust.metrics
    assert py.strategy == "py_sma(20,100)"


def test_sma_default_windows_match_too(spy):
    rust = tenor.backtest("sma_crossover", spy)
    py = tenor.backtest(PySmaCrossover(), spy)
    assert (py.fills["price"] == rust.fills["price"]).all() and len(py.fills) == len(rust.fills)
    assert (py.equity["equity"] == rust.equity["equity"]).all()


class Watcher:
    """Records what the Context exposes at each bar, and fills."""

    def __init__(self):
        self.seen, self.fills, self.placed = [], [], {}

    def on_bar(self, ctx):
        i = ctx.index()
        h = ctx.history(0)
        self.seen.append((i, ctx.time(), len(h), h[-1].time, ctx.closes(0, 3)))
        if i == 5:
            self.placed[ctx.order(0, 10)] = i

    def on_fill(self, ctx, fill):
        self.fills.append((ctx.index(), fill.order, fill.quantity))


def test_no_look_ahead_and_next_bar_fills(spy):
    w = Watcher()
    r = tenor.backtest(w, spy, commission_bps=0, slippage_bps=0)
    for i, t, n, last, closes in w.seen:
        assert n == i + 1 and last == t, "history reaches past the current bar"
        assert len(closes) == min(3, i + 1)
    # the order placed at bar 5 fills on bar 6, at its open: read from the file itself (row 6,
    # 1999-11-09, open 138.5), with no commission or slippage (this compared the fill price
    # with itself: issue 29)
    assert w.fills == [(6, 1, 10.0)]
    bars = pd.read_csv(spy)
    assert bars["date"].iloc[6] == "1999-11-09" and bars["open"].iloc[6] == 138.5
    assert r.fills["price"].iloc[0] == bars["open"].iloc[6]
    assert r.fills["price"].iloc[0] != bars["close"].iloc[5]  # not the bar the order was placed on
    assert r.fills["time"].iloc[0] == r.equity["time"].iloc[6]


def test_context_outside_its_callback_raises(spy):
    class Keep:
        def on_bar(self, ctx):
            self.ctx = ctx

    k = Keep()
    tenor.backtest(k, spy)
    with pytest.raises(tenor.TenorError, match="only valid inside"):
        k.ctx.cash()


def test_python_exception_propagates(spy):
    class Boom:
        def on_bar(self, ctx):
            if ctx.index() == 3:
                raise ZeroDivisionError("boom at 3")

    with pytest.raises(ZeroDivisionError, match="boom at 3"):
        tenor.backtest(Boom(), spy)


def test_bad_data_file_names_line_and_column(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text(",date,open,high,low,close,volume\n0,2020-01-02,1,2,0.5,1.5,100\n1,2020-01-03,1,x,0.5,1.5,100\n")
    with pytest.raises(tenor.InputError) as info:
        tenor.backtest("buy_and_hold", p)
    e = info.value
    assert e.file == str(p) and e.line == 3 and e.column == "high" and "high" in str(e)


def test_bad_settings_and_params(spy):
    with pytest.raises(tenor.ParameterError) as info:
        tenor.backtest("buy_and_hold", spy, cash=-1)
    assert info.value.parameter == "cash"
    with pytest.raises(tenor.ParameterError, match="unknown strategy"):
        tenor.backtest("no_such", spy)


def test_sweep_rows_equal_single_runs(spy):
    df = tenor.sweep("sma_crossover", spy, {"fast": [10, 20], "slow": [20, 100]})
    assert len(df) == 4
    bad = df[(df["fast"] == 20) & (df["slow"] == 20)]
    assert "fast" in bad["error"].iloc[0]
    one = tenor.backtest("sma_crossover", spy, params={"fast": 10, "slow": 100})
    row = df[(df["fast"] == 10) & (df["slow"] == 100)].iloc[0]
    assert row["total_return"] == one.metrics["total_return"] and row["error"] == ""


def test_strategies_list_the_table_that_builds_them(spy):
    # tenor.strategies() is the registration table of tenor_backtest::strategies (ADR 0016):
    # the "unknown strategy" error lists the same names, and each strategy refuses a parameter
    # it does not take by naming exactly the parameters listed for it.
    rows = tenor.strategies()
    names = [r["name"] for r in rows]
    assert {"buy_and_hold", "sma_crossover", "short_straddle"} <= set(names)
    with pytest.raises(tenor.ParameterError) as info:
        tenor.backtest("no_such", spy)
    assert str(info.value).split("known: ")[1].split(", ") == names
    for r in rows:
        with pytest.raises(tenor.ParameterError) as info:
            tenor.backtest(r["name"], spy, params={"no_such_parameter": 1.0})
        takes = str(info.value).split("it takes: ")[1].rstrip(")")
        assert [t.split(" (default")[0] for t in takes.split(", ")] == list(r["params"]), r["name"]
    assert [r["name"] for r in rows if r["prices_options"]] == ["short_straddle"]
