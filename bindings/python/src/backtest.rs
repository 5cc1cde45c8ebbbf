//! Backtests from Python: a strategy written as a Python class (`on_bar(ctx)`, optional
//! `on_fill(ctx, fill)`, `start(ctx)`, `end(ctx)`) or a built-in one by name, run by the
//! Rust engine (`tenor_backtest::Engine`) with its no-look-ahead rules unchanged: the
//! [`Context`] a Python strategy gets is the engine's own, so it sees history up to the current
//! bar only and its orders fill from the next bar on.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tenor_backtest::engine::StrategyError as EngineStrategyError;
use tenor_backtest::strategies::{self, Params};
use tenor_backtest::{Engine, Feed, OrderKind, RunResult, Strategy};

use crate::device::Device;
use crate::errors::{data_error, parameter_error, StrategyError, TenorError};

/// One bar (times in seconds since the epoch, UTC, at the bar's end).
#[pyclass(frozen, get_all, module = "tenor._tenor")]
#[derive(Clone)]
pub struct Bar {
    /// Bar time, seconds since the epoch (UTC).
    time: i64,
    /// Opening price.
    open: f64,
    /// Highest price.
    high: f64,
    /// Lowest price.
    low: f64,
    /// Closing price.
    close: f64,
    /// Volume in shares.
    volume: f64,
    /// Cash dividend per share going ex on this bar.
    dividend: f64,
}

impl From<&tenor_backtest::Bar> for Bar {
    fn from(b: &tenor_backtest::Bar) -> Self {
        Self {
            time: b.time,
            open: b.open,
            high: b.high,
            low: b.low,
            close: b.close,
            volume: b.volume,
            dividend: b.dividend,
        }
    }
}

#[pymethods]
impl Bar {
    fn __repr__(&self) -> String {
        format!(
            "Bar(time={}, open={}, high={}, low={}, close={})",
            self.time, self.open, self.high, self.low, self.close
        )
    }
}

/// One fill, as `on_fill(ctx, fill)` receives it.
#[pyclass(frozen, get_all, module = "tenor._tenor")]
#[derive(Clone)]
pub struct Fill {
    /// Order id.
    order: u64,
    /// Bar time of the fill.
    time: i64,
    /// Symbol.
    symbol: String,
    /// Signed quantity, shares.
    quantity: f64,
    /// Fill price after slippage.
    price: f64,
    /// Commission paid.
    commission: f64,
}

impl From<&tenor_backtest::Fill> for Fill {
    fn from(f: &tenor_backtest::Fill) -> Self {
        Self {
            order: f.order,
            time: f.time,
            symbol: f.symbol.clone(),
            quantity: f.quantity,
            price: f.price,
            commission: f.commission,
        }
    }
}

/// An open order (`ctx.open_orders()`).
#[pyclass(frozen, get_all, module = "tenor._tenor")]
pub struct Order {
    /// Order id.
    id: u64,
    /// Symbol index.
    symbol: usize,
    /// Signed quantity.
    quantity: f64,
    /// `market`, `limit` or `stop`.
    kind: String,
    /// Limit or stop price (None for market orders).
    price: Option<f64>,
    /// Bar index it was placed at.
    placed: usize,
}

/// What a Python strategy sees and does during one callback: the engine's `Context`. Valid
/// only inside the callback it was passed to (using it later raises TenorError).
#[pyclass(unsendable, module = "tenor._tenor")]
pub struct Context {
    /// The engine's context during the callback; null outside it.
    ptr: Cell<*mut ()>,
}

impl Context {
    fn with<R>(&self, f: impl FnOnce(&mut tenor_backtest::Context<'_>) -> R) -> PyResult<R> {
        let p = self.ptr.get();
        if p.is_null() {
            return Err(TenorError::new_err("this Context is only valid inside the callback it was passed to"));
        }
        // SAFETY: `p` is the `&mut Context` of the callback now running (set just before the
        // Python call and cleared right after it, on the same thread: the class is unsendable);
        // the engine does not touch it while Python runs.
        let ctx = unsafe { &mut *p.cast::<tenor_backtest::Context<'static>>() };
        Ok(f(ctx))
    }
}

fn symbol_check(ctx: &tenor_backtest::Context<'_>, s: usize) -> PyResult<()> {
    if s < ctx.symbols().len() {
        Ok(())
    } else {
        Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "symbol index {s} out of range: the feed has {} symbol(s)",
            ctx.symbols().len()
        )))
    }
}

#[pymethods]
impl Context {
    /// Index of the current bar (0-based).
    fn index(&self) -> PyResult<usize> {
        self.with(|c| c.index())
    }
    /// Time of the current bar (seconds since the epoch, UTC).
    fn time(&self) -> PyResult<i64> {
        self.with(|c| c.time())
    }
    /// Symbols of the feed (symbol 0 is the first data file).
    fn symbols(&self) -> PyResult<Vec<String>> {
        self.with(|c| c.symbols().to_vec())
    }
    /// The current bar of symbol `s`, or None when it did not trade.
    #[pyo3(signature = (s=0))]
    fn bar(&self, s: usize) -> PyResult<Option<Bar>> {
        self.with(|c| c.bar(s).map(Bar::from))
    }
    /// Bars of symbol `s` up to and including the current one (the last `n` when given).
    #[pyo3(signature = (s=0, n=None))]
    fn history(&self, s: usize, n: Option<usize>) -> PyResult<Vec<Bar>> {
        self.with(|c| {
            let mut v: Vec<Bar> = c.history(s).rev().take(n.unwrap_or(usize::MAX)).map(Bar::from).collect();
            v.reverse();
            v
        })
    }
    /// Closes of symbol `s` up to and including the current bar (the last `n` when given).
    #[pyo3(signature = (s=0, n=None))]
    fn closes(&self, s: usize, n: Option<usize>) -> PyResult<Vec<f64>> {
        self.with(|c| {
            let mut v: Vec<f64> = c.history(s).rev().take(n.unwrap_or(usize::MAX)).map(|b| b.close).collect();
            v.reverse();
            v
        })
    }
    /// Cash.
    fn cash(&self) -> PyResult<f64> {
        self.with(|c| c.cash())
    }
    /// Shares held of symbol `s`.
    #[pyo3(signature = (s=0))]
    fn position(&self, s: usize) -> PyResult<f64> {
        self.with(|c| c.position(s))
    }
    /// Last close of symbol `s` at or before the current bar.
    #[pyo3(signature = (s=0))]
    fn last_close(&self, s: usize) -> PyResult<Option<f64>> {
        self.with(|c| c.last_close(s))
    }
    /// Equity: cash, shares at their last close and marked instruments.
    fn equity(&self) -> PyResult<f64> {
        self.with(|c| c.equity())
    }
    /// Places an order for `quantity` shares (signed) of symbol `s`: `kind` "market" (at the
    /// next bar's open), "limit" or "stop" (with `price`). Returns its id.
    #[pyo3(signature = (s, quantity, kind="market", price=None))]
    fn order(&self, s: usize, quantity: f64, kind: &str, price: Option<f64>) -> PyResult<u64> {
        let py_err = |m: String| pyo3::exceptions::PyValueError::new_err(m);
        if !quantity.is_finite() {
            return Err(py_err(format!("order quantity {quantity} is not finite")));
        }
        let kind = match (kind, price) {
            ("market", None) => OrderKind::Market,
            ("limit", Some(p)) if p.is_finite() && p > 0.0 => OrderKind::Limit(p),
            ("stop", Some(p)) if p.is_finite() && p > 0.0 => OrderKind::Stop(p),
            ("market", Some(_)) => return Err(py_err("a market order takes no price".into())),
            ("limit" | "stop", _) => return Err(py_err(format!("a {kind} order needs a finite price > 0"))),
            (other, _) => {
                return Err(py_err(format!("order kind {other:?}: expected \"market\", \"limit\" or \"stop\"")))
            }
        };
        self.with(|c| {
            symbol_check(c, s)?;
            Ok(c.order(s, quantity, kind))
        })?
    }
    /// Cancels an open order.
    fn cancel(&self, id: u64) -> PyResult<()> {
        self.with(|c| c.cancel(id))
    }
    /// Open orders (during `on_fill`, including this bar's orders not yet filled).
    fn open_orders(&self) -> PyResult<Vec<Order>> {
        self.with(|c| {
            c.open_orders()
                .iter()
                .map(|o| {
                    let (kind, price) = match o.kind {
                        OrderKind::Market => ("market", None),
                        OrderKind::Limit(p) => ("limit", Some(p)),
                        OrderKind::Stop(p) => ("stop", Some(p)),
                    };
                    Order {
                        id: o.id,
                        symbol: o.symbol,
                        quantity: o.quantity,
                        kind: kind.into(),
                        price,
                        placed: o.placed,
                    }
                })
                .collect()
        })
    }
    /// Books a cash flow of an instrument the strategy values itself.
    fn book_cash(&self, amount: f64) -> PyResult<()> {
        self.with(|c| c.book_cash(amount))
    }
    /// Sets (or with None removes) the mark of an instrument the strategy holds.
    #[pyo3(signature = (name, value=None))]
    fn set_mark(&self, name: &str, value: Option<f64>) -> PyResult<()> {
        self.with(|c| c.set_mark(name, value))
    }
}

/// A Python object driven as a [`Strategy`]. The first Python exception stops the run and is
/// raised again from `run_backtest`.
struct PyStrategy {
    object: PyObject,
    name: String,
    error: Option<PyErr>,
}

impl PyStrategy {
    fn call(
        &mut self,
        ctx: &mut tenor_backtest::Context<'_>,
        method: &str,
        fill: Option<&tenor_backtest::Fill>,
    ) -> Result<(), EngineStrategyError> {
        let result = Python::with_gil(|py| -> PyResult<()> {
            let object = self.object.bind(py);
            if method != "on_bar" && !object.hasattr(method)? {
                return Ok(());
            }
            let handle = Bound::new(py, Context { ptr: Cell::new(std::ptr::from_mut(ctx).cast::<()>()) })?;
            let r = match fill {
                Some(f) => object.call_method1(method, (handle.clone(), Fill::from(f))),
                None => object.call_method1(method, (handle.clone(),)),
            };
            handle.borrow().ptr.set(std::ptr::null_mut());
            r.map(|_| ())
        });
        result.map_err(|e| {
            let message = Python::with_gil(|py| e.value(py).to_string());
            self.error.get_or_insert(e);
            ctx.error(format!("{method} raised: {message}"))
        })
    }
}

impl Strategy for PyStrategy {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn start(&mut self, ctx: &mut tenor_backtest::Context<'_>) -> Result<(), EngineStrategyError> {
        self.call(ctx, "start", None)
    }
    fn on_bar(&mut self, ctx: &mut tenor_backtest::Context<'_>) -> Result<(), EngineStrategyError> {
        self.call(ctx, "on_bar", None)
    }
    fn on_fill(
        &mut self,
        ctx: &mut tenor_backtest::Context<'_>,
        fill: &tenor_backtest::Fill,
    ) -> Result<(), EngineStrategyError> {
        self.call(ctx, "on_fill", Some(fill))
    }
    fn end(&mut self, ctx: &mut tenor_backtest::Context<'_>) -> Result<(), EngineStrategyError> {
        self.call(ctx, "end", None)
    }
}

/// The run as Python values: strategy, equity_time, equity, fills (columns), dividends,
/// metrics (JSON text of `tenor backtest`'s metrics.json).
fn result_dict<'py>(py: Python<'py>, r: &RunResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("strategy", &r.strategy)?;
    d.set_item("equity_time", r.equity.iter().map(|e| e.0).collect::<Vec<_>>())?;
    d.set_item("equity", r.equity.iter().map(|e| e.1).collect::<Vec<_>>())?;
    let fills = PyDict::new(py);
    fills.set_item("time", r.fills.iter().map(|f| f.time).collect::<Vec<_>>())?;
    fills.set_item("symbol", r.fills.iter().map(|f| f.symbol.clone()).collect::<Vec<_>>())?;
    fills.set_item("quantity", r.fills.iter().map(|f| f.quantity).collect::<Vec<_>>())?;
    fills.set_item("price", r.fills.iter().map(|f| f.price).collect::<Vec<_>>())?;
    fills.set_item("commission", r.fills.iter().map(|f| f.commission).collect::<Vec<_>>())?;
    fills.set_item("order", r.fills.iter().map(|f| f.order).collect::<Vec<_>>())?;
    d.set_item("fills", fills)?;
    d.set_item("dividends", r.dividends)?;
    let metrics = serde_json::to_string(&r.metrics).map_err(|e| TenorError::new_err(format!("metrics: {e}")))?;
    d.set_item("metrics", metrics)?;
    Ok(d)
}

/// Market data for a backtest: a file to load, or bars already in memory as (name in messages,
/// symbol, time (seconds since the epoch, UTC, bar end), open, high, low, close, volume,
/// dividend), all columns of one length.
#[derive(FromPyObject)]
pub enum Data {
    /// A CSV file in one of the layouts of docs/backtest.md.
    File(PathBuf),
    /// Bars in memory (`tenor_backtest::data::series` checks them as a file's).
    Bars(BarColumns),
}

/// Bars as columns: (name, symbol, time, open, high, low, close, volume, dividend).
type BarColumns = (String, String, Vec<i64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

/// Loads (or checks) the data into a feed (symbol 0 is the first).
fn load_feed(py: Python<'_>, data: Vec<Data>) -> PyResult<Feed> {
    if data.is_empty() {
        return Err(parameter_error(py, "data", "data: at least one market data file is needed".into()));
    }
    let series = py
        .allow_threads(|| data.into_iter().map(load_series).collect::<Result<Vec<_>, _>>())
        .map_err(|e| data_error(py, &e))?;
    Ok(Feed::new(series))
}

fn load_series(d: Data) -> Result<tenor_backtest::Series, tenor_backtest::DataError> {
    match d {
        Data::File(p) => tenor_backtest::data::load(&p, None),
        Data::Bars((name, symbol, time, open, high, low, close, volume, dividend)) => {
            let n = time.len();
            if [open.len(), high.len(), low.len(), close.len(), volume.len(), dividend.len()].iter().any(|l| *l != n) {
                return Err(tenor_backtest::DataError::Bad {
                    file: name,
                    line: 1,
                    column: "time/open/high/low/close/volume/dividend".into(),
                    reason: "the columns have different lengths".into(),
                });
            }
            let bars = (0..n)
                .map(|i| tenor_backtest::Bar {
                    time: time[i],
                    open: open[i],
                    high: high[i],
                    low: low[i],
                    close: close[i],
                    volume: volume[i],
                    dividend: dividend[i],
                })
                .collect();
            tenor_backtest::data::series(&name, &symbol, bars)
        }
    }
}

/// Reads market data (a file in any layout of docs/backtest.md, or bars in memory as
/// [`BarColumns`]) with the checks of `tenor backtest` and returns the bars as columns: (file
/// or name, symbol, time (seconds since the epoch, UTC, bar end), open, high, low, close,
/// volume, dividend), the in-memory form `run_backtest` and `run_sweep` take (to send bars to
/// processes that cannot read the file).
///
/// Raises InputError naming the file (or name), line and column of a bad cell.
#[pyfunction]
fn load_bars(py: Python<'_>, data: Data) -> PyResult<BarColumns> {
    let name = match &data {
        Data::File(p) => p.display().to_string(),
        Data::Bars(b) => b.0.clone(),
    };
    let s = py.allow_threads(|| load_series(data)).map_err(|e| data_error(py, &e))?;
    let col = |f: fn(&tenor_backtest::Bar) -> f64| s.bars.iter().map(f).collect::<Vec<f64>>();
    Ok((
        name,
        s.symbol.clone(),
        s.bars.iter().map(|b| b.time).collect(),
        col(|b| b.open),
        col(|b| b.high),
        col(|b| b.low),
        col(|b| b.close),
        col(|b| b.volume),
        col(|b| b.dividend),
    ))
}

fn engine(py: Python<'_>, costs: Costs, insufficient_cash: &str) -> PyResult<Engine> {
    let (cash, per_share, commission_bps, min_commission, slippage_bps, periods_per_year) = costs;
    let cash_policy = match insufficient_cash {
        "refuse" => tenor_backtest::CashPolicy::Refuse,
        "resize" => tenor_backtest::CashPolicy::Resize,
        other => {
            return Err(parameter_error(
                py,
                "insufficient_cash",
                format!("insufficient_cash {other:?}: expected \"refuse\" or \"resize\""),
            ))
        }
    };
    let settings = tenor_app::backtest::Settings {
        cash,
        per_share,
        commission_bps,
        min_commission,
        slippage_bps,
        periods_per_year,
        cash_policy,
    };
    tenor_app::backtest::engine_config(&settings)
        .map(Engine::new)
        .map_err(|e| parameter_error(py, e.flag, e.to_string()))
}

/// Cash, commission per share, commission bps, minimum commission, slippage bps, periods per
/// year (the flags of `tenor backtest`).
type Costs = (f64, f64, f64, f64, f64, f64);

fn strategy_error(e: &EngineStrategyError) -> PyErr {
    let err = StrategyError::new_err(e.to_string());
    Python::with_gil(|py| {
        let v = err.value(py);
        let set = v.setattr("strategy", &e.strategy).and_then(|()| v.setattr("bar", e.bar));
        match set {
            Ok(()) => err,
            Err(x) => x,
        }
    })
}

/// Runs `strategy` (a Python object with `on_bar(ctx)`, or a built-in name with `params`) over
/// the market data files `data` with the engine settings; option strategies price on `device`
/// (cpu when None). Returns the run (see `result_dict`).
#[pyfunction]
#[pyo3(signature = (strategy, data, params=None, device=None, costs=(1_000_000.0, 0.0, 1.0, 0.0, 1.0, 252.0), insufficient_cash="refuse"))]
fn run_backtest<'py>(
    py: Python<'py>,
    strategy: Bound<'py, PyAny>,
    data: Vec<Data>,
    params: Option<BTreeMap<String, f64>>,
    device: Option<PyRef<'py, Device>>,
    costs: Costs,
    insufficient_cash: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let engine = engine(py, costs, insufficient_cash)?;
    let feed = load_feed(py, data)?;
    if let Ok(name) = strategy.extract::<String>() {
        let compute = match device {
            Some(d) => d.compute.clone(),
            None => tenor_registry::open("cpu").map_err(|e| crate::errors::BackendError::new_err(e.to_string()))?,
        };
        let params: Params = params.unwrap_or_default().into_iter().collect();
        let r = py.allow_threads(|| {
            let mut s = strategies::build(&name, &params, compute).map_err(|e| Err(e.to_string()))?;
            engine.run(&feed, s.as_mut()).map_err(Ok)
        });
        return match r {
            Ok(r) => result_dict(py, &r),
            Err(Err(message)) => Err(parameter_error(py, "params", message)),
            Err(Ok(e)) => Err(strategy_error(&e)),
        };
    }
    if params.is_some() {
        return Err(parameter_error(
            py,
            "params",
            "params is for built-in strategies; a Python strategy takes its own".into(),
        ));
    }
    let name = match strategy.getattr("name") {
        Ok(n) if !n.is_callable() => n.str()?.to_string(),
        _ => strategy.get_type().name()?.to_string(),
    };
    let mut s = PyStrategy { object: strategy.unbind(), name, error: None };
    match engine.run(&feed, &mut s) {
        Ok(r) => result_dict(py, &r),
        Err(e) => Err(s.error.take().unwrap_or_else(|| strategy_error(&e))),
    }
}

/// The parameter sets of a sweep: the Cartesian product of `axes` (name, values), each set
/// completed by `params` (`tenor_backtest::sweep::sets`), in grid order.
#[pyfunction]
#[pyo3(signature = (axes, params=None))]
fn sweep_sets(axes: Vec<(String, Vec<f64>)>, params: Option<BTreeMap<String, f64>>) -> Vec<BTreeMap<String, f64>> {
    tenor_backtest::sweep::sets(&axes, &params.unwrap_or_default())
}

/// Splits the parameter sets of a sweep into at most `chunks` chunks of about equal estimated
/// cost (`tenor_backtest::sweep::plan`): indices into `sets`, ascending in each chunk.
///
/// Raises ParameterError for `chunks` 0.
#[pyfunction]
fn plan_sweep(py: Python<'_>, sets: Vec<Params>, chunks: usize) -> PyResult<Vec<Vec<usize>>> {
    if chunks == 0 {
        return Err(parameter_error(py, "chunks", "chunks 0: at least one chunk is needed".into()));
    }
    Ok(tenor_backtest::sweep::plan(&sets, chunks))
}

/// Runs built-in strategy `name` for every parameter set of `sets` (from `sweep_sets`) in
/// parallel, as `tenor backtest --sweep` does. Returns one (parameters, result or error
/// message) per set, in the order of `sets`.
#[pyfunction]
#[pyo3(signature = (name, data, sets, device=None, costs=(1_000_000.0, 0.0, 1.0, 0.0, 1.0, 252.0), insufficient_cash="refuse"))]
#[allow(clippy::type_complexity)]
fn run_sweep<'py>(
    py: Python<'py>,
    name: String,
    data: Vec<Data>,
    sets: Vec<Params>,
    device: Option<PyRef<'py, Device>>,
    costs: Costs,
    insufficient_cash: &str,
) -> PyResult<Vec<(BTreeMap<String, f64>, PyObject)>> {
    let engine = engine(py, costs, insufficient_cash)?;
    let feed = load_feed(py, data)?;
    let compute = match device {
        Some(d) => d.compute.clone(),
        None => tenor_registry::open("cpu").map_err(|e| crate::errors::BackendError::new_err(e.to_string()))?,
    };
    if let Some(first) = sets.first() {
        if let Err(e @ strategies::ParamError::Unknown { .. }) = strategies::build(&name, first, compute.clone()) {
            return Err(parameter_error(py, "params", e.to_string()));
        }
    }
    let results = py.allow_threads(|| {
        tenor_backtest::sweep::run(
            &engine,
            &feed,
            &sets,
            |p| {
                strategies::build(&name, p, compute.clone()).map_err(|e| EngineStrategyError {
                    strategy: name.clone(),
                    bar: 0,
                    message: e.to_string(),
                })
            },
            &|| {},
        )
    });
    sets.into_iter()
        .zip(results)
        .map(|(p, r)| {
            let v: PyObject = match r {
                Ok(r) => result_dict(py, &r)?.into_any().unbind(),
                Err(e) => e.to_string().into_pyobject(py)?.into_any().unbind(),
            };
            Ok((p, v))
        })
        .collect()
}

/// One row of the strategy table for Python: (name, description, [(parameter, default)],
/// prices options).
type StrategyRow = (String, String, Vec<(String, f64)>, bool);

/// The built-in strategies (the registration table of `tenor_backtest::strategies`), one
/// [`StrategyRow`] each.
#[pyfunction]
#[pyo3(name = "strategies")]
fn strategy_table() -> Vec<StrategyRow> {
    strategies::STRATEGIES
        .iter()
        .map(|s| {
            let params = s.params.iter().map(|(n, d)| ((*n).to_owned(), *d)).collect();
            (s.name.to_owned(), s.description.to_owned(), params, s.prices_options)
        })
        .collect()
}

/// Adds the classes and functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Bar>()?;
    m.add_class::<Fill>()?;
    m.add_class::<Order>()?;
    m.add_class::<Context>()?;
    m.add_function(wrap_pyfunction!(run_backtest, m)?)?;
    m.add_function(wrap_pyfunction!(run_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_sets, m)?)?;
    m.add_function(wrap_pyfunction!(plan_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(load_bars, m)?)?;
    m.add_function(wrap_pyfunction!(strategy_table, m)?)?;
    Ok(())
}
