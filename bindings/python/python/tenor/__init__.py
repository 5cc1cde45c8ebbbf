"""Tenor from Python: price books, fit volatility surfaces and backtest Python strategies on
any Tenor backend (cpu, sim, cuda, sycl), with the library code of the ``tenor`` command.

Quick start::

    import tenor
    dev = tenor.open("cpu")
    prices = dev.price("examples/spx_book.csv")       # pandas DataFrame, tenor price's columns

Errors are exceptions of one hierarchy (``TenorError`` and its subclasses ``InputError``,
``ParameterError``, ``BackendError``, ``StrategyError``) with the command line's messages;
``InputError`` carries ``file``, ``line`` and ``column``. See docs/python.md.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _tenor, alloc, pilot
from ._tenor import (
    Bar,
    BackendError,
    Context,
    Fill,
    InputError,
    Order,
    ParameterError,
    StrategyError,
    TenorError,
)

__all__ = [
    "Bar",
    "BackendError",
    "BacktestResult",
    "Context",
    "Device",
    "Fill",
    "InputError",
    "Order",
    "alloc",
    "ParameterError",
    "StrategyError",
    "TenorError",
    "backends",
    "backtest",
    "basket",
    "BASKET_COLUMNS",
    "calibrate_heston",
    "HestonCalibration",
    "open",
    "pilot",
    "read_bars",
    "strategies",
    "sweep",
    "treasury_curve",
]

#: The columns of ``tenor basket``'s greeks.csv (docs/basket-job.md), in order.
BASKET_COLUMNS = ["greek", "asset", "other", "value", "stderr"]

#: The output columns of ``tenor price`` (docs/portfolio-csv.md), in order.
PRICE_COLUMNS = ["id", "price", "stderr", "delta", "gamma", "vega", "theta", "rho", "method", "backend"]


def _pandas():
    import pandas

    return pandas


def backends() -> "Any":
    """Every backend Tenor knows and whether it can run here, as a DataFrame with columns
    ``name``, ``available``, ``detail`` (the device's name, or why it is unavailable) and
    ``description``: the registry's table, as ``tenor backends`` prints it."""
    rows = _tenor.backends()
    return _pandas().DataFrame(rows, columns=["name", "available", "detail", "description"])


def kinds() -> "list[dict[str, Any]]":
    """The kinds of the portfolio format (docs/portfolio-csv.md), from the product table: one
    dict per kind with ``name`` (the ``kind`` cell), ``summary``, ``columns`` (those it reads
    beyond the common ones), ``c_code`` (``TENOR_KIND_*`` of the C ABI, None where the C trade
    has no fields for it) and ``methods`` (the engines that may price it)."""
    return [
        {"name": n, "summary": s, "columns": list(c), "c_code": code, "methods": list(m)}
        for (n, s, c, code, m) in _tenor.kinds()
    ]


def methods() -> "list[dict[str, Any]]":
    """The engines of the book, from the engine table: one dict per ``method`` value of a
    priced row with ``method``, ``c_code`` (``TENOR_METHOD_*``), ``place`` (``host`` or
    ``device``), ``monte_carlo`` (whether its rows carry a standard error) and ``summary``."""
    return [
        {"method": m, "c_code": c, "place": p, "monte_carlo": mc, "summary": s}
        for (m, c, p, mc, s) in _tenor.methods()
    ]


def strategies() -> "list[dict[str, Any]]":
    """The built-in strategies, from the same table as ``tenor backtest --help`` and the
    "unknown strategy" error: one dict per strategy with ``name``, ``description``, ``params``
    (parameter name to default, in the order the strategy reads them) and ``prices_options``
    (whether it prices options on the device)."""
    return [
        {"name": n, "description": d, "params": dict(p), "prices_options": o}
        for (n, d, p, o) in _tenor.strategies()
    ]


def _number(x: Any) -> str:
    """A cell as the portfolio reader reads it: floats in shortest round-trip form (repr), so
    the value read back is the same double; None/NaN as an empty cell (not applicable)."""
    if x is None:
        return ""
    if isinstance(x, float):
        x = float(x)  # numpy.float64 is a float whose repr is "np.float64(...)"
        if math.isnan(x):
            return ""
        if x.is_integer() and abs(x) < 2.0**53:
            # a whole number as an integer ("12", not "12.0": pandas stores a column with
            # empty cells, such as fixings, as floats); it reads back as the same double
            return str(int(x))
        return repr(x)
    if hasattr(x, "item"):  # numpy scalar
        return _number(x.item())
    return str(x)


def _csv_text(columns: Mapping[str, Sequence[Any]]) -> str:
    """Columns (a DataFrame, or a mapping of names to numpy arrays or lists) as portfolio CSV
    text, read by the same reader as a file (so every check and message is the file's)."""
    import csv
    import io

    names = list(columns.keys())
    data = [list(columns[n]) for n in names]
    lengths = {len(c) for c in data}
    if len(lengths) > 1:
        raise ParameterError(f"book columns have different lengths: {sorted(lengths)}")
    n = lengths.pop() if lengths else 0
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(names)
    for i in range(n):
        w.writerow([_number(c[i]) for c in data])
    return out.getvalue()


def _is_arrow(x: Any) -> bool:
    """Whether ``x`` is a pyarrow Table or RecordBatch (without importing pyarrow)."""
    return type(x).__module__.startswith("pyarrow") and hasattr(x, "to_pydict")


def _parameter(name: str, message: str) -> "ParameterError":
    err = ParameterError(message)
    err.parameter = name
    return err


def _problems_message(problems: list) -> str:
    lines = [p[3] for p in problems]
    head = f"{len(problems)} problem(s) in the book: " if len(problems) > 1 else ""
    return head + "; ".join(lines[:5]) + ("; ..." if len(lines) > 5 else "")

def _check_output(output: str) -> None:
    if output not in ("pandas", "arrow"):
        raise _parameter("output", f"output {output!r}: expected \"pandas\" or \"arrow\"")


def _book_source(book: Any) -> "tuple[str, Optional[str]]":
    """A book argument as (file, text): a path is read by the native reader (text None); a
    DataFrame, pyarrow Table or RecordBatch or a mapping of columns becomes CSV text named
    ``<book>``."""
    if isinstance(book, (str, os.PathLike)):
        return os.fspath(book), None
    if _is_arrow(book):
        book = book.to_pydict()
    return "<book>", _csv_text(book)


def _check_out(out: Any, file: str) -> None:
    """Refuses an ``out`` that names the book itself, and checks it can be written (before
    any work, as ``tenor price`` opens ``--out`` first)."""
    target = os.fspath(out)
    if file != "<book>" and os.path.exists(file) and os.path.exists(target) and os.path.samefile(file, target):
        raise _parameter("out", f"out {target!r} is the book itself; it would be replaced by the prices")
    _tenor.write_prices(target)


def _price_result(columns: dict, problems: list, rows_read: int, *, strict: bool, output: str, out: Any) -> "Any":
    """The result of a priced book from the native columns (lists, None where not applicable):
    ``InputError`` for problems under ``strict``; else the DataFrame (or pyarrow Table) with
    the problems in ``attrs["errors"]``, the rows also written to ``out`` when given."""
    if problems and strict:
        err = InputError(_problems_message(problems))
        first = problems[0]
        err.file, err.line, err.column, err.errors = first[0], first[1], first[2], problems
        raise err
    if out is not None:
        _tenor.write_prices(os.fspath(out), columns)
    pd = _pandas()
    df = pd.DataFrame({c: columns[c] for c in PRICE_COLUMNS})
    for c in PRICE_COLUMNS[1:8]:
        df[c] = df[c].astype("float64")
    df.attrs["errors"] = problems
    df.attrs["rows_read"] = rows_read
    if output == "arrow":
        import pyarrow

        table = pyarrow.Table.from_pandas(df, preserve_index=False)
        meta = json.dumps({"errors": problems, "rows_read": rows_read})
        return table.replace_schema_metadata({**(table.schema.metadata or {}), b"tenor": meta.encode()})
    return df


class Device:
    """An open backend (``tenor.open(name)``). Thread-safe; pricing releases the GIL."""

    def __init__(self, native: "_tenor.Device"):
        self._native = native

    @property
    def backend(self) -> str:
        """The backend's name: ``cpu``, ``sim``, ``cuda``, ``sycl``."""
        return self._native.backend

    @property
    def name(self) -> str:
        """The device's name as the backend reports it."""
        return self._native.name

    @property
    def fp64(self) -> bool:
        """Whether the device computes in double precision."""
        return self._native.fp64

    def __repr__(self) -> str:
        return f"tenor.Device(backend={self.backend!r}, name={self.name!r})"

    def price(
        self,
        book: Union[str, "os.PathLike[str]", Mapping[str, Sequence[Any]], Any],
        *,
        paths: int = 100_000,
        seed: int = 42,
        engine: str = "auto",
        steps: int = 64,
        streams: int = 1,
        greeks: bool = True,
        strict: bool = True,
        output: str = "pandas",
        out: Optional[Union[str, "os.PathLike[str]"]] = None,
    ) -> "Any":
        """Prices a book as ``tenor price`` does and returns a pandas DataFrame with its columns
        (``PRICE_COLUMNS``; NaN where not applicable), one row per priced trade in input order.

        ``book``: a portfolio CSV path (docs/portfolio-csv.md), a pandas DataFrame, a pyarrow
        Table or RecordBatch, or a mapping of column names to numpy arrays or lists (the CSV's
        columns; NaN, None or null is an empty cell). ``output``: "pandas" (a DataFrame, the
        default) or "arrow" (a pyarrow Table with the same columns and values; the problems
        and rows read are then in its schema metadata, as JSON under ``tenor``). ``paths`` (even, >= 4), ``seed``, ``engine`` ("auto" or "mc"), ``steps``,
        ``streams`` and ``greeks`` are the command line's ``--paths``, ``--seed``,
        ``--engine``, ``--steps``, ``--streams`` and ``--no-greeks``.

        Bad rows: with ``strict`` (the default) an ``InputError`` is raised naming the first
        (``file``, ``line``, ``column``; ``errors`` lists them all, with the command line's
        messages). With ``strict=False`` the other rows are priced and returned, and the
        problems are in ``result.attrs["errors"]`` (as ``tenor price``, which prices the good
        rows and exits 1). In-memory books are named ``<book>`` in messages; line 2 is their
        first row.

        ``out``: also write the rows to this file as ``tenor price --out`` does (the same
        bytes), atomically; not written when ``strict`` raises. It is checked before pricing.

        Raises ``ParameterError`` for a bad setting and ``BackendError`` when the device fails
        (as a row problem of the Monte Carlo rows concerned).
        """
        _check_output(output)
        file, text = _book_source(book)
        if out is not None:
            _check_out(out, file)
        columns, problems, rows_read = self._native.price_csv(
            file, text, paths=paths, seed=seed, engine=engine, steps=steps, streams=streams, greeks=greeks
        )
        return _price_result(columns, problems, rows_read, strict=strict, output=output, out=out)

    def __reduce__(self):
        raise TypeError(
            f"a tenor.Device (backend {self.backend!r}) cannot be sent to another process: it is the open "
            "backend of the process that opened it. Send the backend's name and open it there; on a Dask "
            f"cluster: tenor.distributed.setup(client, backend={self.backend!r}), then "
            f"tenor.distributed.price(book, backend={self.backend!r}) (docs/distributed.md)"
        )

    def surface(self, chain: Union[str, "os.PathLike[str]"], *, as_of: Optional[str] = None) -> "Surface":
        """Implied volatilities of every quote of an option chain (a Cboe folder or file, or a
        Yahoo CSV with ``as_of`` "YYYY-MM-DD") in one batch on this device, and the per-expiry
        SVI fits with their butterfly checks: ``tenor surface``. Returns a ``Surface``."""
        return Surface(_tenor.surface(self._native, os.fspath(chain), as_of))


class Surface:
    """The result of ``Device.surface``: ``quotes`` (DataFrame: one row per quote with mid,
    parity forward and discount, ``implied_vol`` or the ``reason`` there is none, ``svi_vol``),
    ``slices`` (DataFrame: SVI parameters a, b, rho, m, sigma per expiry, fit errors, butterfly
    check), ``warnings`` (list of str), ``source`` and ``spot``."""

    def __init__(self, raw: dict):
        pd = _pandas()
        self.quotes = pd.DataFrame(raw["quotes"])
        self.quotes["implied_vol"] = self.quotes["implied_vol"].astype("float64")
        self.quotes["svi_vol"] = self.quotes["svi_vol"].astype("float64")
        self.slices = pd.DataFrame(raw["slices"])
        self.warnings: list = raw["warnings"]
        self.source: str = raw["source"]
        self.spot: Optional[float] = raw["spot"]

    def __repr__(self) -> str:
        return f"tenor.Surface({self.source!r}: {len(self.quotes)} quotes, {len(self.slices)} SVI slices)"


def open(name: str = "cpu") -> Device:  # noqa: A001 - the library's verb, as tenor_registry::open
    """Opens backend ``name``: ``cpu``, ``sim``, ``cuda``, ``sycl`` or ``auto`` (the first that
    runs here), the names of ``tenor price --backend``. Raises ``BackendError`` with the reason
    when it cannot run here (not compiled in, no device)."""
    return Device(_tenor.open(name))


def treasury_curve(file: Union[str, "os.PathLike[str]"], date: Optional[str] = None,
                   maturities: Optional[Iterable[float]] = None) -> "Any":
    """The zero curve bootstrapped from the US Treasury par yields of ``file`` (either
    published layout) on the latest date on or before ``date`` ("YYYY-MM-DD"; the last date
    when None). Returns a DataFrame with columns ``maturity`` (years), ``zero_rate``
    (continuously compounded) and ``discount``, at ``maturities`` (the file's tenors when
    None); ``df.attrs["date"]`` is the curve's date. Raises ``InputError`` naming file, line
    and column for a malformed file."""
    ms = None if maturities is None else [float(m) for m in maturities]
    day, ts, zeros, discounts = _tenor.treasury_curve(os.fspath(file), date, ms)
    df = _pandas().DataFrame({"maturity": ts, "zero_rate": zeros, "discount": discounts})
    df.attrs["date"] = day
    return df


class HestonCalibration:
    """The result of ``calibrate_heston``: ``params`` (dict: the ``params.json`` of ``tenor
    calibrate heston``: v0, kappa, theta, sigma, rho, Feller term, quotes, iterations,
    pricings, launches, pricer, backend, stop, quadrature_nodes, weighted_rmse_vol,
    wall_seconds), ``fit`` (DataFrame: the columns of ``fit.csv``, one row per fitted quote,
    unrounded; ``model_iv`` and ``iv_error_bp`` NaN where the model price has no implied vol)
    and ``notes`` (expiries skipped for want of a parity forward)."""

    def __init__(self, params_json: str, fit: dict, notes: list):
        self.params: dict = json.loads(params_json)
        self.fit = _pandas().DataFrame(fit)
        for c in ("model_iv", "iv_error_bp"):
            self.fit[c] = self.fit[c].astype("float64")
        self.notes: list = notes

    def __repr__(self) -> str:
        p = self.params
        return (f"tenor.HestonCalibration({p['quotes']} quotes: v0 {p['v0']:.5f} kappa {p['kappa']:.4f} "
                f"theta {p['theta']:.5f} sigma {p['sigma']:.4f} rho {p['rho']:.4f}, {p['stop']})")


def calibrate_heston(
    chain: Union[str, "os.PathLike[str]"],
    *,
    backend: Union[str, Device] = "cpu",
    min_days: float = 7.0,
    max_years: float = 2.0,
    max_sd: float = 2.0,
    per_slice: int = 10,
    slices: int = 12,
    max_iterations: int = 100,
    pricer: str = "port",
    nodes: int = 256,
) -> HestonCalibration:
    """Calibrates the Heston model to a Cboe SPX chain snapshot (a quote-data CSV file or a
    folder of them) with the code of ``tenor calibrate heston``: the same quote selection,
    vega-weighted Levenberg-Marquardt and numbers (``params`` equals its ``params.json`` but
    for ``wall_seconds``). ``backend``: a backend name or an open ``Device``; the other
    settings are the command line's options of the same names (``--min-days`` ...) with its
    defaults; ``pricer`` "port" (the ``heston_price`` kernel on the backend) or "host".

    Raises ``InputError`` for a bad chain file (file, line, column), ``ParameterError`` for a
    setting out of range, ``BackendError`` when the device or the fit fails, ``TenorError``
    when fewer than 5 quotes qualify or the chain gives no spot."""
    device = backend if isinstance(backend, Device) else open(backend)
    params, fit, notes = _tenor.calibrate_heston(
        device._native, os.fspath(chain), float(min_days), float(max_years), float(max_sd), int(per_slice),
        int(slices), int(max_iterations), pricer, int(nodes))
    return HestonCalibration(params, fit, notes)


def basket(
    job: Union[str, "os.PathLike[str]"],
    *,
    backend: Union[str, Device] = "cpu",
    paths: Optional[int] = None,
    steps: Optional[int] = None,
    seed: Optional[int] = None,
    greeks: bool = True,
) -> "Any":
    """Prices the STAC-A2 basket job at ``job`` (a TOML file, docs/basket-job.md) with the code of
    ``tenor basket``: a DataFrame of the rows of its ``greeks.csv`` (columns ``BASKET_COLUMNS``:
    greek, asset and other (asset names, missing where the Greek has none), value, stderr (missing
    where none is estimated)),
    equal to the command's bit for bit. ``backend``: a backend name or an open ``Device``;
    ``paths``, ``steps``, ``seed`` override the file's ``[simulation]`` values; ``greeks=False``
    gives the price alone. ``df.attrs`` holds ``job`` (the file's SHA-256), ``valuations`` and
    ``seconds`` (the job's wall time).

    Raises ``InputError`` for a bad job file (``file``, ``line`` of a syntax error, ``column``
    the key, e.g. ``asset[2].kappa``), ``ParameterError`` for an override out of range
    (``parameter``: paths, steps or seed), ``BackendError`` when the device fails."""
    pd = _pandas()
    device = backend if isinstance(backend, Device) else open(backend)
    cols, sha, valuations, seconds = _tenor.basket(
        device._native, os.fspath(job), None if paths is None else int(paths), None if steps is None else int(steps),
        None if seed is None else int(seed), bool(greeks))
    df = pd.DataFrame(cols, columns=BASKET_COLUMNS)
    df.attrs.update({"job": sha, "valuations": valuations, "seconds": seconds})
    return df


class BacktestResult:
    """A backtest: ``strategy`` (name), ``equity`` (DataFrame: time (UTC), equity after each
    bar's close), ``fills`` (DataFrame: time, symbol, quantity, price, commission, order),
    ``dividends`` (total received) and ``metrics`` (dict: the metrics.json of
    ``tenor backtest``)."""

    def __init__(self, raw: dict):
        pd = _pandas()
        self.strategy: str = raw["strategy"]
        self.equity = pd.DataFrame(
            {"time": pd.to_datetime(raw["equity_time"], unit="s", utc=True), "equity": raw["equity"]}
        )
        fills = dict(raw["fills"])
        fills["time"] = pd.to_datetime(fills["time"], unit="s", utc=True)
        self.fills = pd.DataFrame(fills, columns=["time", "symbol", "quantity", "price", "commission", "order"])
        self.dividends: float = raw["dividends"]
        self.metrics: dict = json.loads(raw["metrics"])

    def __repr__(self) -> str:
        m = self.metrics
        return (f"tenor.BacktestResult({self.strategy}: {len(self.equity)} bars, {len(self.fills)} fills, "
                f"total return {100 * m['total_return']:+.2f} %)")


def _costs(cash, per_share, commission_bps, min_commission, slippage_bps, periods_per_year):
    return (float(cash), float(per_share), float(commission_bps), float(min_commission), float(slippage_bps),
            float(periods_per_year))


def backtest(
    strategy: Any,
    data: Any,
    *,
    params: Optional[Mapping[str, float]] = None,
    device: Optional[Device] = None,
    cash: float = 1_000_000.0,
    per_share: float = 0.0,
    commission_bps: float = 1.0,
    min_commission: float = 0.0,
    slippage_bps: float = 1.0,
    periods_per_year: float = 252.0,
    insufficient_cash: str = "refuse",
) -> BacktestResult:
    """Runs a strategy over market data (symbol 0 is the first) with the engine of ``tenor
    backtest`` and its defaults. ``data``: a file in a layout of docs/backtest.md, bars in
    memory (a DataFrame, pyarrow Table or mapping of ``BAR_COLUMNS``, as ``read_bars``
    returns; the symbol is ``attrs["symbol"]``), or a list of these.

    ``strategy``: a built-in name (``tenor.strategies()`` lists them with their parameters)
    with ``params``, or a Python object with ``on_bar(ctx)`` and optionally
    ``on_fill(ctx, fill)``, ``start(ctx)``, ``end(ctx)`` and a ``name``. ``ctx`` is the
    engine's ``Context``: the current bar, history up to it (nothing later is reachable),
    cash, positions, equity, ``order(symbol, quantity, kind="market", price=None)`` (filled from
    the next bar on), ``cancel``, ``open_orders``. Option strategies price on ``device``
    (cpu when None). ``insufficient_cash`` ("refuse" or "resize") is ``--insufficient-cash``:
    what a buy the cash does not cover does.

    Raises ``InputError`` for a bad data file (file, line, column), ``ParameterError`` for a bad
    setting or parameter, ``StrategyError`` when a built-in strategy stops the run; an
    exception raised by a Python strategy propagates unchanged.
    """
    native = None if device is None else device._native
    raw = _tenor.run_backtest(strategy, _data(data), None if params is None else {k: float(v) for k, v in params.items()},
                              native, _costs(cash, per_share, commission_bps, min_commission, slippage_bps,
                                             periods_per_year), insufficient_cash)
    return BacktestResult(raw)


def sweep(
    strategy: str,
    data: Any,
    grid: Mapping[str, Iterable[float]],
    *,
    params: Optional[Mapping[str, float]] = None,
    device: Optional[Device] = None,
    cash: float = 1_000_000.0,
    per_share: float = 0.0,
    commission_bps: float = 1.0,
    min_commission: float = 0.0,
    slippage_bps: float = 1.0,
    periods_per_year: float = 252.0,
    insufficient_cash: str = "refuse",
) -> "Any":
    """Runs built-in ``strategy`` for every combination of ``grid`` (parameter name to values;
    the Cartesian product, completed by ``params``) in parallel, as ``tenor backtest --sweep``.
    Returns a DataFrame: one row per run with the parameters, the metrics, and ``error`` (the
    reason a combination could not run, e.g. fast >= slow; empty otherwise)."""
    sets = _tenor.sweep_sets(_axes(grid), _params(params))
    native = None if device is None else device._native
    runs = _tenor.run_sweep(strategy, _data(data), sets, native,
                            _costs(cash, per_share, commission_bps, min_commission, slippage_bps, periods_per_year),
                            insufficient_cash)
    return _sweep_frame(runs)


def _axes(grid: Mapping[str, Iterable[float]]) -> list:
    return [(k, [float(v) for v in vs]) for k, vs in grid.items()]


def _params(params: Optional[Mapping[str, float]]) -> Optional[dict]:
    return None if params is None else {k: float(v) for k, v in params.items()}


def _sweep_frame(runs: Iterable) -> "Any":
    """A sweep's DataFrame from its runs, (parameters, result dict with ``metrics`` JSON, or
    the reason the set could not run), in grid order."""
    rows = []
    for p, r in runs:
        row = dict(p)
        if isinstance(r, str):
            row["error"] = r
        else:
            row.update(json.loads(r["metrics"]))
            row["error"] = ""
        rows.append(row)
    return _pandas().DataFrame(rows)


#: The columns of in-memory bars (``read_bars``; ``dividend`` may be left out: none).
BAR_COLUMNS = ["time", "open", "high", "low", "close", "volume", "dividend"]


def read_bars(path: Union[str, "os.PathLike[str]"]) -> "Any":
    """Reads a market data file (any layout of docs/backtest.md, the checks of ``tenor
    backtest``) into a DataFrame of ``BAR_COLUMNS``: ``time`` (UTC, the bar's end: 23:59:59
    for daily bars), prices, volume, cash dividend per share. ``df.attrs["symbol"]`` is the
    symbol (the file's stem) and ``df.attrs["file"]`` the file. The frame is the in-memory
    form ``backtest`` and ``sweep`` take as ``data``, to send bars to processes that cannot
    read the file (``tenor.distributed``). Raises ``InputError`` naming file, line and column."""
    name, symbol, time, *values = _tenor.load_bars(os.fspath(path))
    pd = _pandas()
    df = pd.DataFrame(dict(zip(BAR_COLUMNS, [pd.to_datetime(time, unit="s", utc=True), *values])))
    df.attrs["symbol"], df.attrs["file"] = symbol, name
    return df


def _input(file: str, line: Optional[int], column: Optional[str], message: str) -> "InputError":
    err = InputError(message)
    err.file, err.line, err.column = file, line, column
    err.errors = [(file, line, column, message)]
    return err


def _is_bars(x: Any) -> bool:
    """Whether ``x`` is one symbol's bars in memory (not a path, not a list of data)."""
    return _is_arrow(x) or isinstance(x, Mapping) or hasattr(x, "columns")


def _bar_columns(bars: Any, index: int) -> tuple:
    """In-memory bars (a DataFrame, pyarrow Table or RecordBatch, or a mapping of columns
    ``BAR_COLUMNS``) as the native layer takes them: (name, symbol, time in seconds, open,
    high, low, close, volume, dividend). The symbol is ``attrs["symbol"]`` (``BARS<index>``
    without one); they are named ``<bars>`` in messages, line 2 being the first bar."""
    pd = _pandas()
    attrs = getattr(bars, "attrs", {}) or {}
    if _is_arrow(bars):
        meta = bars.schema.metadata or {}
        attrs = {"symbol": meta.get(b"symbol", b"").decode() or None}
        bars = bars.to_pydict()
    name = "<bars>"
    symbol = attrs.get("symbol") or f"BARS{index}"
    for c in BAR_COLUMNS[:6]:
        if c not in bars:
            raise _input(name, 1, c, f"{name}:1: column {c} missing (in-memory bars need {', '.join(BAR_COLUMNS[:6])})")
    t = pd.Series(bars["time"])
    if pd.api.types.is_datetime64_any_dtype(t):
        if t.dt.tz is None:
            t = t.dt.tz_localize("UTC")
        seconds = (t - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)
        if ((t - pd.Timestamp(0, tz="UTC")) % pd.Timedelta(seconds=1) != pd.Timedelta(0)).any():
            raise _input(name, None, "time", f"{name}: column time: times must be whole seconds")
    else:
        seconds = pd.to_numeric(t)
        if (seconds != seconds.round()).any():
            raise _input(name, None, "time", f"{name}: column time: times must be whole seconds since the epoch")
    n = len(t)
    cols = [[float(x) for x in bars[c]] for c in BAR_COLUMNS[1:6]]
    dividend = [float(x) for x in bars["dividend"]] if "dividend" in bars else [0.0] * n
    return (name, str(symbol), [int(x) for x in seconds], *cols, dividend)


def _data(data: Any) -> list:
    """``data`` as the native layer takes it: a list of file paths and in-memory bars."""
    items = [data] if isinstance(data, (str, os.PathLike)) or _is_bars(data) else list(data)
    return [os.fspath(d) if isinstance(d, (str, os.PathLike)) else d if isinstance(d, tuple) else _bar_columns(d, i)
            for i, d in enumerate(items)]


def __getattr__(name: str) -> Any:
    # ``tenor.distributed`` is imported on first use (it needs the ``distributed`` extra).
    if name == "distributed":
        import importlib

        return importlib.import_module("tenor.distributed")
    raise AttributeError(f"module 'tenor' has no attribute {name!r}")
