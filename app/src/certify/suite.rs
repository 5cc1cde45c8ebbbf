//! The regression suite of `tenor certify` and `tenor compare`: each part runs on the backend
//! and gives value rows (with how each is compared) and a latency (median and IQR over repeats).
//!
//! Parts: `book` (the example SPX book with Greeks, closed-form and Monte Carlo rows);
//! `oracles` (the published tables of `shared/oracles`, European and barrier, priced by the
//! closed forms; skipped with the reason when the folder is absent); `kernels` (the pilot's
//! seeded workloads on every built-in kernel it has, checksums of their outputs); `heston`
//! (calibration to the example Cboe chain on the backend); `strategy` (the delta-hedged short
//! straddle's equity curve; skipped without its data); `alloc` (a replayed synthetic desk trace
//! against every strategy in deterministic mode, and the caching allocator with opportunistic
//! reuse, reported only).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use tenor_pilot::measure::Stats;
use tenor_pilot::workloads::{prepare, Workload};
use tenor_ports::Compute;
use tenor_pricing::portfolio::{self, BookConfig, Engine};

use super::format::{LatencyRow, Precision, Rule, ValueRow};

/// Which suite: `quick` (seconds, for CI and tests) or `default` (the whole book, full sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteKind {
    /// Small: a slice of the book, 2^12 paths, short fits, 5 repeats or 0.2 s per workload.
    Quick,
    /// The whole book at 10^5 paths, full fits, 7 repeats or 1 s per workload.
    Default,
}

impl SuiteKind {
    /// Name in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            Self::Quick => "quick",
            Self::Default => "default",
        }
    }
    /// Timed repeats at least, and the time budget per workload in seconds.
    fn repeats(self) -> (usize, f64) {
        match self {
            Self::Quick => (5, 0.2),
            Self::Default => (7, 1.0),
        }
    }
}

/// Where the suite finds its inputs.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The repository's `examples/` folder (the SPX book and the Cboe chain).
    pub examples: PathBuf,
    /// The shared folder (`oracles/`, `data/equities/`); may be absent.
    pub shared: PathBuf,
}

/// Closed forms on the host: the same binary gives the same bits; 1e-12 leaves room for a
/// different libm only.
const CLOSED_FORM: Rule = Rule::Rel(1e-12);
/// Monte Carlo prices: within 3 standard errors; their Greeks (common random numbers) to 1e-6.
const MC_PRICE: Rule = Rule::KStderr(3.0);
const MC_GREEKS: Rule = Rule::Rel(1e-6);
/// Fitted parameters and equity curves: iterative, so 1e-9 relative.
const ITERATIVE: Rule = Rule::Rel(1e-9);

/// What one part gave.
pub struct PartResult {
    /// Value rows.
    pub rows: Vec<ValueRow>,
    /// Its latency.
    pub latency: LatencyRow,
}

/// A part that cannot run here, and why (a missing optional input).
pub struct Skipped(pub String);

/// Runs `f` once untimed (its result is kept), then times it at least `repeats` times and
/// until `budget_s` seconds of samples (at most 100), so cheap workloads get enough samples
/// for a stable median and an honest IQR.
fn timed<T>(
    name: &str,
    (repeats, budget_s): (usize, f64),
    mut f: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<(T, LatencyRow)> {
    let first = f()?;
    let mut samples = Vec::with_capacity(repeats);
    let start = Instant::now();
    while samples.len() < repeats || (samples.len() < 100 && start.elapsed().as_secs_f64() < budget_s) {
        let t = Instant::now();
        f()?;
        samples.push(t.elapsed().as_secs_f64());
    }
    let s = Stats::from_samples(samples);
    Ok((first, LatencyRow { workload: name.into(), median_s: s.median_s, rel_iqr: s.rel_iqr, repeats: s.repeats }))
}

/// The example book (`examples/spx_book.csv`) with Greeks. Quick: the first 6 trades of each
/// kind at 2^12 paths; default: every trade at 10^5 paths.
///
/// # Errors
/// An unreadable book, a backend error or a trade that cannot be priced.
pub fn book(dev: &dyn Compute, inputs: &Inputs, suite: SuiteKind) -> anyhow::Result<PartResult> {
    let file = inputs.examples.join("spx_book.csv");
    let parsed = portfolio::read_portfolio(&file)?;
    anyhow::ensure!(parsed.errors.is_empty(), "{}: {} bad rows", file.display(), parsed.errors.len());
    let mut trades = parsed.trades;
    if suite == SuiteKind::Quick {
        let mut seen = std::collections::BTreeMap::new();
        trades.retain(|t| {
            let n = seen.entry(t.kind()).or_insert(0usize);
            *n += 1;
            *n <= 6
        });
    }
    let paths = if suite == SuiteKind::Quick { 1 << 12 } else { 100_000 };
    let config = BookConfig { engine: Engine::Auto, paths, seed: 42, steps: 64, streams: 1, greeks: true };
    let (rows, latency) = timed("book", suite.repeats(), || {
        portfolio::price_book(dev, &trades, &config, &mut |_| {})
            .into_iter()
            .zip(&trades)
            .map(|(r, t)| r.with_context(|| format!("{}: trade {}", file.display(), t.id)))
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let rows = rows
        .into_iter()
        .map(|r| {
            let mc = portfolio::is_monte_carlo(&r.method);
            ValueRow {
                id: r.id,
                price: r.price,
                stderr: r.stderr,
                delta: r.delta,
                gamma: r.gamma,
                vega: r.vega,
                theta: r.theta,
                rho: r.rho,
                compare: if mc { MC_PRICE } else { CLOSED_FORM }.to_string(),
                greeks_compare: if mc { MC_GREEKS } else { CLOSED_FORM }.to_string(),
                terms: if mc { paths } else { 1 },
                precision: Precision::F64,
            }
        })
        .collect();
    Ok(PartResult { rows, latency })
}

#[derive(serde::Deserialize)]
struct OracleRow {
    #[serde(rename = "type")]
    option: String,
    spot: f64,
    strike: f64,
    q: f64,
    r: f64,
    t: f64,
    v: f64,
    expected: f64,
    tolerance: f64,
    source_line: u64,
    barrier_type: Option<String>,
    barrier: Option<f64>,
    rebate: Option<f64>,
}

fn read_oracle(file: &Path) -> anyhow::Result<Vec<OracleRow>> {
    let mut r = csv::Reader::from_path(file).with_context(|| format!("reading {}", file.display()))?;
    r.deserialize().map(|row| row.with_context(|| format!("reading {}", file.display()))).collect()
}

/// The published European (Haug) and barrier (Haug, Reiner-Rubinstein) tables priced by the
/// closed forms; each row's id is `file:source_line`. A price outside the table's own
/// tolerance is an error: a baseline is only written from a correct build.
///
/// # Errors
/// [`Skipped`] (as the error's root) when `shared/oracles` is absent; a table row that misses.
pub fn oracles(inputs: &Inputs, suite: SuiteKind) -> anyhow::Result<Result<PartResult, Skipped>> {
    use tenor_pricing::analytic::{barrier::barrier_price, bsm::black_scholes_price};
    use tenor_pricing::types::{BarrierSpec, BarrierType, OptionType, Vanilla};
    let dir = inputs.shared.join("oracles");
    if !dir.is_dir() {
        return Ok(Err(Skipped(format!("{} does not exist (set --shared or TENOR_SHARED)", dir.display()))));
    }
    let mut tables = Vec::new();
    for name in ["european_haug.csv", "barrier_haug.csv"] {
        tables.push((name, read_oracle(&dir.join(name))?));
    }
    let price = |o: &OracleRow| -> anyhow::Result<f64> {
        let option = if o.option == "call" { OptionType::Call } else { OptionType::Put };
        let vanilla =
            Vanilla { option, spot: o.spot, strike: o.strike, maturity: o.t, rate: o.r, dividend: o.q, vol: o.v };
        Ok(match (&o.barrier_type, o.barrier) {
            (Some(bt), Some(barrier)) => {
                let barrier_type = match bt.as_str() {
                    "down_out" => BarrierType::DownOut,
                    "down_in" => BarrierType::DownIn,
                    "up_out" => BarrierType::UpOut,
                    "up_in" => BarrierType::UpIn,
                    other => anyhow::bail!("barrier type {other:?}"),
                };
                barrier_price(&BarrierSpec { vanilla, barrier, barrier_type, rebate: o.rebate.unwrap_or(0.0) })?
            }
            _ => black_scholes_price(&vanilla)?,
        })
    };
    let (rows, latency) = timed("oracles", suite.repeats(), || {
        let mut rows = Vec::new();
        for (name, table) in &tables {
            for o in table {
                let p = price(o).with_context(|| format!("{name} line {}", o.source_line))?;
                anyhow::ensure!(
                    (p - o.expected).abs() <= o.tolerance,
                    "{name} (source line {}): price {p} differs from the published {} by more than {}",
                    o.source_line,
                    o.expected,
                    o.tolerance
                );
                rows.push(ValueRow::plain(format!("{name}:{}", o.source_line), p, CLOSED_FORM, 1, Precision::F64));
            }
        }
        Ok(rows)
    })?;
    Ok(Ok(PartResult { rows, latency }))
}

/// Neumaier's compensated sum of `xs` (Neumaier 1974; Higham, *Accuracy and Stability of
/// Numerical Algorithms*, 2nd ed., section 4.3): the checksum of a kernel output, as exact as a
/// double can hold, whatever order the kernel produced the values in.
pub fn compensated_sum(xs: &[f64]) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for &x in xs {
        let t = s + x;
        c += if s.abs() >= x.abs() { (s - t) + x } else { (x - t) + s };
        s = t;
    }
    s + c
}

/// Every pilot workload (the built-in kernels `gbm_paths`, `payoff_asian`, `mc_european`,
/// `mc_european_f32`, `mc_asian`, `mc_asian_f32`, `curve_build`, and gemm) seeded at its
/// smallest quick size (the default suite: the next size): a row `<workload>` with the
/// compensated sum of everything it wrote, compared bitwise (the kernels are deterministic:
/// Philox by (seed, path, step), per-block sums added by the host in block order). The other
/// built-in kernels run inside the book (`mc_barrier`, the Asian and European families) and the
/// Heston fit (`heston_price`). One latency row per workload.
///
/// # Errors
/// Backend errors.
pub fn kernels(dev: &dyn Compute, suite: SuiteKind) -> anyhow::Result<(PartResult, Vec<LatencyRow>)> {
    let s = dev.default_stream().clone();
    let mut rows = Vec::new();
    let mut lat = Vec::new();
    for w in Workload::ALL {
        let sizes = tenor_pilot::Suite::Quick.sizes(w);
        let size = sizes[usize::from(suite == SuiteKind::Default)];
        let p = prepare(dev, &s, w, size)?;
        let (out, l) = timed(&format!("kernel {}", w.name()), suite.repeats(), || {
            p.enqueue(dev, &s)?;
            dev.synchronize()?;
            Ok(())
        })?;
        let () = out;
        let values = p.output(dev, &s)?;
        let precision = if w.name().ends_with("_f32") { Precision::F32 } else { Precision::F64 };
        rows.push(ValueRow::plain(
            w.name(),
            compensated_sum(&values),
            Rule::Bitwise,
            (w.work(size) as u64).max(1),
            precision,
        ));
        lat.push(l);
    }
    let total = LatencyRow {
        workload: "kernels".into(),
        median_s: lat.iter().map(|l| l.median_s).sum(),
        rel_iqr: lat.iter().map(|l| l.rel_iqr).fold(0.0, f64::max),
        repeats: suite.repeats().0,
    };
    Ok((PartResult { rows, latency: total }, lat))
}

/// Heston calibration to the example Cboe chain (`examples/data/spx_cboe_2025-10-01`) on the
/// backend (the `heston_price` kernel): rows `v0`, `kappa`, `theta`, `sigma`, `rho`, `rmse`.
/// Quick: 3 expiries of 4 quotes, 8 iterations; default: `tenor calibrate`'s settings.
///
/// # Errors
/// Chain, implied-vol or calibration errors.
pub fn heston(dev: &dyn Compute, inputs: &Inputs, suite: SuiteKind) -> anyhow::Result<PartResult> {
    use crate::calibration::{prepare, HestonSettings, Pricer};
    let quick = suite == SuiteKind::Quick;
    let args = HestonSettings {
        chain: inputs.examples.join("data/spx_cboe_2025-10-01"),
        min_days: 7.0,
        max_years: 2.0,
        max_sd: 2.0,
        per_slice: if quick { 4 } else { 10 },
        slices: if quick { 3 } else { 12 },
        max_iterations: if quick { 8 } else { 100 },
        pricer: Pricer::Port,
        nodes: tenor_pricing::heston::DEFAULT_NODES,
    };
    let prep = prepare(&args, dev)?;
    let (res, latency) = timed("heston", suite.repeats(), || {
        Ok(tenor_pricing::heston::calibrate_heston(dev, &prep.quotes, &prep.cfg)?)
    })?;
    let p = res.params;
    let n = prep.quotes.len() as u64;
    let rows =
        [("v0", p.v0), ("kappa", p.kappa), ("theta", p.theta), ("sigma", p.sigma), ("rho", p.rho), ("rmse", res.rmse)]
            .into_iter()
            .map(|(id, v)| ValueRow::plain(id, v, ITERATIVE, n, Precision::F64))
            .collect();
    Ok(PartResult { rows, latency })
}

/// The delta-hedged short straddle (`short_straddle`, priced by Monte Carlo on the backend) on
/// SPY daily bars (`shared/data/equities/spy_daily_1999_2020.csv`; quick: the last 250 bars at
/// 2048 paths): one row per bar, id the bar's date, price the equity.
///
/// # Errors
/// [`Skipped`] without the data file; data or strategy errors.
pub fn strategy(
    dev: Arc<dyn Compute>,
    inputs: &Inputs,
    suite: SuiteKind,
) -> anyhow::Result<Result<PartResult, Skipped>> {
    use tenor_backtest::strategies;
    use tenor_backtest::{CostModel, EngineConfig, Feed};
    let file = inputs.shared.join("data/equities/spy_daily_1999_2020.csv");
    if !file.is_file() {
        return Ok(Err(Skipped(format!("{} does not exist (set --shared or TENOR_SHARED)", file.display()))));
    }
    let mut series = tenor_backtest::data::load(&file, None)?;
    let keep = if suite == SuiteKind::Quick { 250 } else { 1260 };
    let cut = series.bars.len().saturating_sub(keep);
    series.bars.drain(..cut);
    let feed = Feed::new(vec![series]);
    let paths = if suite == SuiteKind::Quick { 2048.0 } else { 8192.0 };
    let params: strategies::Params = [("paths".to_owned(), paths), ("seed".to_owned(), 1.0)].into_iter().collect();
    let engine = tenor_backtest::Engine::new(EngineConfig {
        cash: 1_000_000.0,
        costs: CostModel { per_share: 0.0, bps: 1.0, minimum: 0.0, slippage_bps: 1.0 },
        periods_per_year: 252.0,
        cash_policy: tenor_backtest::CashPolicy::Refuse,
    });
    let (r, latency) = timed("strategy", suite.repeats(), || {
        let mut s = strategies::build("short_straddle", &params, dev.clone())?;
        Ok(engine.run(&feed, s.as_mut())?)
    })?;
    let rows = r
        .equity
        .iter()
        .map(|(t, e)| {
            let day = chrono::DateTime::from_timestamp(*t, 0)
                .map_or_else(|| t.to_string(), |d| d.format("%Y-%m-%d").to_string());
            ValueRow::plain(day, *e, ITERATIVE, paths as u64, Precision::F64)
        })
        .collect();
    Ok(Ok(PartResult { rows, latency }))
}

/// The synthetic pricing desk's trace (seed 7; quick 8 jobs, default 24) replayed on the simulated device against
/// every allocation strategy in deterministic mode: rows `<strategy>.inserted_waits` and
/// `<strategy>.peak_reserved` (bitwise), and the caching allocator with opportunistic reuse
/// (`caching.opportunistic.*`, reported, not compared: its reuse depends on timing).
///
/// # Errors
/// Replay errors.
pub fn alloc(suite: SuiteKind) -> anyhow::Result<PartResult> {
    use tenor_alloc::desk::{desk_trace, DeskConfig};
    use tenor_alloc::replay::{replay, Kind, ReplayOptions};
    let jobs = if suite == SuiteKind::Quick { 8 } else { 24 };
    let trace = desk_trace(&DeskConfig { seed: 7, jobs, ..DeskConfig::default() });
    let (rows, latency) = timed("alloc", suite.repeats(), || {
        let mut rows = Vec::new();
        let det = ReplayOptions::default();
        for k in Kind::ALL {
            let r = replay(&trace, k, &det, &tenor_registry::checked_device, &mut |_| {})?;
            let n = r.events as u64;
            rows.push(ValueRow::plain(
                format!("{}.inserted_waits", k.name()),
                r.inserted_waits as f64,
                Rule::Bitwise,
                n,
                Precision::F64,
            ));
            rows.push(ValueRow::plain(
                format!("{}.peak_reserved", k.name()),
                r.peak_reserved as f64,
                Rule::Bitwise,
                n,
                Precision::F64,
            ));
        }
        let opp = ReplayOptions { deterministic: false, ..ReplayOptions::default() };
        let r = replay(&trace, Kind::Caching, &opp, &tenor_registry::checked_device, &mut |_| {})?;
        let n = r.events as u64;
        rows.push(ValueRow::plain(
            "caching.opportunistic.inserted_waits",
            r.inserted_waits as f64,
            Rule::Report,
            n,
            Precision::F64,
        ));
        rows.push(ValueRow::plain(
            "caching.opportunistic.peak_reserved",
            r.peak_reserved as f64,
            Rule::Report,
            n,
            Precision::F64,
        ));
        Ok(rows)
    })?;
    Ok(PartResult { rows, latency })
}

#[cfg(test)]
mod tests {
    use super::compensated_sum;

    #[test]
    fn compensated_sum_keeps_what_a_plain_sum_loses() {
        // 1 + 1e100 - 1e100: the plain sum is 0, the exact sum 1.
        let xs = [1.0, 1e100, 1.0, -1e100];
        assert_eq!(xs.iter().sum::<f64>(), 0.0);
        assert_eq!(compensated_sum(&xs), 2.0);
    }
}
