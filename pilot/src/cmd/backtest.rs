//! `tenor backtest`: run a strategy (or a parameter sweep) on market data on a backend, writing
//! trades.csv, equity.csv, metrics.json and an equity and drawdown chart.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _};
use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use tenor_backtest::strategies::{self, Params};
use tenor_backtest::{Engine, EngineConfig, Feed, RunResult};

/// Arguments of `tenor backtest`.
#[derive(Debug, clap::Args)]
pub struct BacktestArgs {
    /// Strategy (the table of `tenor_backtest::strategies`).
    #[arg(long, help = tenor_backtest::strategies::help())]
    pub strategy: String,
    /// Market data files (the layouts of docs/backtest.md); symbol 0 is the first file.
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<PathBuf>,
    /// Backend the strategy's pricing runs on.
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// Strategy parameter, `name=value` (repeatable).
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// Sweep a parameter over `start:stop:step` (inclusive; repeatable: the grid is the product).
    #[arg(long = "sweep")]
    pub sweeps: Vec<String>,
    /// Sweeps of option strategies batch every bar's pricing of all runs into one call on the
    /// backend; this prices each run on its own instead (for comparison).
    #[arg(long)]
    pub unbatched: bool,
    /// Lockstep groups of a batched sweep, run concurrently, each one price_batch call per bar;
    /// 0: one per core on the cpu backend (whose launches run on the calling thread), else 1.
    /// A group holds at least one run, so a number above the sweep's runs is lowered to the
    /// number of runs; the summary prints the number used.
    #[arg(long, default_value_t = 0)]
    pub batch_groups: usize,
    /// Starting cash.
    #[arg(long, default_value_t = 1_000_000.0)]
    pub cash: f64,
    /// Commission per share.
    #[arg(long, default_value_t = 0.0)]
    pub per_share: f64,
    /// Commission in basis points of notional.
    #[arg(long, default_value_t = 1.0)]
    pub commission_bps: f64,
    /// Minimum commission per fill.
    #[arg(long, default_value_t = 0.0)]
    pub min_commission: f64,
    /// Slippage on market and stop fills, basis points.
    #[arg(long, default_value_t = 1.0)]
    pub slippage_bps: f64,
    /// Bars per year of the primary feed (the first data file) for annualising (252 daily;
    /// 98280 for regular-session minute bars); metrics count only that feed's bars.
    #[arg(long, default_value_t = 252.0)]
    pub periods_per_year: f64,
    /// A buy whose cost exceeds the cash at the fill: `refuse` it, or `resize` it to the shares
    /// the cash pays for. The account never borrows.
    #[arg(long, value_enum, default_value_t = CashArg::Refuse)]
    pub insufficient_cash: CashArg,
    /// Output folder.
    #[arg(long, default_value = "backtest-out")]
    pub out: PathBuf,
}

/// What `--insufficient-cash` does ([`tenor_backtest::CashPolicy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CashArg {
    /// Refuse the buy.
    Refuse,
    /// Buy what the cash pays for.
    Resize,
}

use tenor_pilot::backtest_config::refuse;
pub use tenor_pilot::backtest_config::ArgError;

/// The engine settings of the flags, checked (`tenor_pilot::backtest_config::engine_config`).
fn engine_config(a: &BacktestArgs) -> Result<EngineConfig, ArgError> {
    tenor_pilot::backtest_config::engine_config(&tenor_pilot::backtest_config::Settings {
        cash: a.cash,
        per_share: a.per_share,
        commission_bps: a.commission_bps,
        min_commission: a.min_commission,
        slippage_bps: a.slippage_bps,
        periods_per_year: a.periods_per_year,
        cash_policy: match a.insufficient_cash {
            CashArg::Refuse => tenor_backtest::CashPolicy::Refuse,
            CashArg::Resize => tenor_backtest::CashPolicy::Resize,
        },
    })
}

fn parse_kv(s: &str) -> anyhow::Result<(String, f64)> {
    let (k, v) = s.split_once('=').ok_or_else(|| anyhow!("--param {s:?}: expected name=value"))?;
    let v: f64 = v.trim().parse().map_err(|_| anyhow!("--param {s:?}: {v:?} is not a number"))?;
    Ok((k.trim().to_owned(), v))
}

/// Largest parameter grid a sweep may run.
const MAX_SWEEP_RUNS: usize = 100_000;

fn parse_sweep(s: &str) -> anyhow::Result<(String, Vec<f64>)> {
    let (k, r) = s.split_once('=').ok_or_else(|| anyhow!("--sweep {s:?}: expected name=start:stop:step"))?;
    let p: Vec<f64> = r
        .split(':')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow!("--sweep {s:?}: bounds must be numbers"))?;
    let [a, b, step] = p[..] else { bail!("--sweep {s:?}: expected start:stop:step") };
    if !(a.is_finite() && b.is_finite() && step.is_finite()) {
        return Err(refuse("--sweep", s, "start, stop and step must be finite").into());
    }
    if step <= 0.0 || b < a {
        return Err(refuse("--sweep", s, "needs step > 0 and stop >= start (at least one run)").into());
    }
    let n = ((b - a) / step + 1e-9).floor() + 1.0;
    if n > MAX_SWEEP_RUNS as f64 {
        bail!("--sweep {s:?}: {n} values; at most {MAX_SWEEP_RUNS} runs are allowed (coarsen the step)");
    }
    let n = n as usize;
    Ok((k.trim().to_owned(), (0..n).map(|i| a + i as f64 * step).collect()))
}

/// The files of one run, written into `--out` as one set ([`tenor_ports::files::OutputDir`]).
const RUN_OUTPUTS: [&str; 4] = ["trades.csv", "equity.csv", "metrics.json", "equity.svg"];

/// Writes trades.csv, equity.csv, metrics.json and equity.svg into the staged set and commits
/// it (the folder then holds exactly this run's files); returns whether the chart was written.
fn write_outputs(r: &RunResult, mut set: tenor_ports::files::OutputDir) -> anyhow::Result<bool> {
    set.write_with("trades.csv", |out| {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(["time", "symbol", "quantity", "price", "commission", "order"])?;
        for f in &r.fills {
            w.write_record([
                iso(f.time),
                f.symbol.clone(),
                f.quantity.to_string(),
                format!("{:.6}", f.price),
                format!("{:.2}", f.commission),
                f.order.to_string(),
            ])?;
        }
        w.flush()
    })?;
    set.write_with("equity.csv", |out| {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(["time", "equity"])?;
        for (t, e) in &r.equity {
            w.write_record([iso(*t), format!("{e:.2}")])?;
        }
        w.flush()
    })?;
    let metrics = serde_json::to_string_pretty(&r.metrics)?;
    set.write_with("metrics.json", |out| out.write_all(metrics.as_bytes()))?;
    let charted = chart(r, &set.staged_path("equity.svg")?)
        .with_context(|| format!("writing {}", set.final_path("equity.svg").display()))?;
    if charted {
        set.mark_written("equity.svg");
    }
    set.commit()?;
    Ok(charted)
}

/// ISO 8601 UTC time of a bar stamp (`2012-08-09T23:59:59Z`; daily bars end at 23:59:59 UTC).
fn iso(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map_or_else(|| t.to_string(), |d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// An axis range `lo..hi` padded by 2 %, or `None` when it is not finite.
fn padded(lo: f64, hi: f64) -> Option<std::ops::Range<f64>> {
    let pad = ((hi - lo) * 0.02).max(hi.abs().max(lo.abs()) * 0.01).max(1e-9);
    let r = (lo - pad)..(hi + pad);
    (r.start.is_finite() && r.end.is_finite() && r.start < r.end).then_some(r)
}

/// Draws the equity and drawdown chart; returns whether it was written (it is not when fewer
/// than two equity points are finite, or the range is not finite: never an infinite axis).
fn chart(r: &RunResult, path: &Path) -> anyhow::Result<bool> {
    let e = |x: DrawingAreaErrorKind<std::io::Error>| anyhow!("drawing {}: {x}", path.display());
    let pts: Vec<(f64, f64)> = r
        .equity
        .iter()
        .map(|(t, v)| (*t as f64 / 86_400.0 / 365.25 + 1970.0, *v))
        .filter(|(_, v)| v.is_finite())
        .collect();
    if pts.len() < 2 {
        return Ok(false);
    }
    let mut peak = f64::MIN;
    let dd: Vec<(f64, f64)> = pts
        .iter()
        .map(|(x, v)| {
            peak = peak.max(*v);
            let d = if peak > 0.0 { -100.0 * (1.0 - v / peak) } else { 0.0 };
            (*x, if d.is_finite() { d } else { 0.0 })
        })
        .collect();
    let (x0, x1) = (pts[0].0, pts[pts.len() - 1].0);
    let (lo, hi) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), (_, v)| (a.min(*v), b.max(*v)));
    let dmin = dd.iter().fold(0.0f64, |m, (_, d)| m.min(*d));
    let (Some(y), Some(dy)) = (padded(lo, hi), padded(dmin - 0.1, 0.0)) else { return Ok(false) };
    if x0 >= x1 || !(x0.is_finite() && x1.is_finite()) {
        return Ok(false);
    }
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let (top, bottom) = root.split_vertically(400);
    let mut c = ChartBuilder::on(&top)
        .caption(format!("{}: equity", r.strategy), ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y)
        .map_err(e)?;
    c.configure_mesh().y_desc("equity").draw().map_err(e)?;
    c.draw_series(LineSeries::new(pts.iter().copied(), BLUE.stroke_width(2))).map_err(e)?;
    let mut c = ChartBuilder::on(&bottom)
        .caption("drawdown (%)", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, dy)
        .map_err(e)?;
    c.configure_mesh().x_desc("year").draw().map_err(e)?;
    c.draw_series(AreaSeries::new(dd.iter().copied(), 0.0, RED.mix(0.3)).border_style(RED)).map_err(e)?;
    root.present().map_err(e)?;
    Ok(true)
}

/// Runs the backtest or the sweep.
pub fn run(a: &BacktestArgs) -> anyhow::Result<ExitCode> {
    let config = engine_config(a)?;
    let inputs: Vec<(&str, &Path)> = a.data.iter().map(|p| ("--data", p.as_path())).collect();
    let outputs = ["trades.csv", "equity.csv", "metrics.json", "equity.svg", "sweep.csv"].map(|f| a.out.join(f));
    let outputs: Vec<(&str, &Path)> = outputs.iter().map(|p| ("--out", p.as_path())).collect();
    super::paths::refuse_overwrite(&inputs, &outputs)?;
    let axes: Vec<(String, Vec<f64>)> = a.sweeps.iter().map(|s| parse_sweep(s)).collect::<anyhow::Result<_>>()?;
    let base: Params = a.params.iter().map(|s| parse_kv(s)).collect::<anyhow::Result<_>>()?;
    let series = a.data.iter().map(|p| tenor_backtest::data::load(p, None)).collect::<Result<Vec<_>, _>>()?;
    let feed = Feed::new(series);
    // The output is prepared once the inputs are read and before any run: an unwritable --out
    // fails now, not after the work.
    let (run_set, sweep_file) = if a.sweeps.is_empty() {
        (Some(tenor_ports::files::OutputDir::create(&a.out, &RUN_OUTPUTS)?), None)
    } else {
        std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
        (None, Some(tenor_ports::files::AtomicFile::create(&a.out.join("sweep.csv"))?))
    };
    let devices = tenor_registry::open_devices(&a.backend)?;
    let compute = devices.first().clone();
    let engine = Engine::new(config);
    if a.sweeps.is_empty() {
        let mut s = strategies::build(&a.strategy, &base, compute.clone())?;
        let t0 = std::time::Instant::now();
        let r = engine.run(&feed, s.as_mut())?;
        let charted = write_outputs(&r, run_set.ok_or_else(|| anyhow!("internal: no output set"))?)?;
        let m = &r.metrics;
        println!(
            "{} on {} ({} bars, {:.2} s, backend {})",
            r.strategy,
            a.data[0].display(),
            feed.len(),
            t0.elapsed().as_secs_f64(),
            compute.info().backend
        );
        println!(
            "  total return {:+.2} %, annual {:+.2} %, vol {:.2} %, Sharpe {:.3}, Sortino {:.3}",
            100.0 * m.total_return,
            100.0 * m.annual_return,
            100.0 * m.volatility,
            m.sharpe,
            m.sortino
        );
        println!(
            "  max drawdown {:.2} % over {} bars, turnover {:.2}/yr, hit rate {:.1} %, {} fills, dividends {:.2}",
            100.0 * m.max_drawdown,
            m.max_drawdown_bars,
            m.turnover,
            100.0 * m.hit_rate,
            m.trades,
            r.dividends
        );
        println!(
            "  annualised on the primary feed {} ({} returns, {} bars per year); buys refused for cash {}, resized {}",
            feed.symbols[0], m.periods, a.periods_per_year, m.refused_orders, m.resized_orders
        );
        let files = if charted {
            "trades.csv,equity.csv,metrics.json,equity.svg"
        } else {
            "trades.csv,equity.csv,metrics.json"
        };
        println!("  wrote {}/{{{files}}}", a.out.display());
        if !charted {
            println!("  no equity.svg: fewer than two finite equity points");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let runs: usize = axes.iter().map(|(_, v)| v.len()).product();
    if runs > MAX_SWEEP_RUNS {
        bail!("--sweep asks for {runs} runs; at most {MAX_SWEEP_RUNS} are allowed (coarsen a step)");
    }
    // A parameter the strategy does not take is an error for the whole sweep, as with --param.
    if let Some(first) = tenor_backtest::sweep::grid(&axes).into_iter().next() {
        let mut p = base.clone();
        p.extend(first);
        if let Err(e @ strategies::ParamError::Unknown { .. }) = strategies::build(&a.strategy, &p, compute.clone()) {
            return Err(e.into());
        }
    }
    let sets: Vec<Params> = tenor_backtest::sweep::grid(&axes)
        .into_iter()
        .map(|mut p| {
            for (k, v) in &base {
                p.entry(k.clone()).or_insert(*v);
            }
            p
        })
        .collect();
    // Invalid combinations (e.g. fast >= slow) are reported per row, not fatal.
    let name = a.strategy.clone();
    let to_error = |e: strategies::ParamError| tenor_backtest::engine::StrategyError {
        strategy: name.clone(),
        bar: 0,
        message: e.to_string(),
    };
    let t0 = std::time::Instant::now();
    let (results, pricing) = if strategies::prices_options(&a.strategy) && !a.unbatched {
        // Lockstep runs, one price_batch call per bar for the whole sweep: progress in bars.
        let bar = ProgressBar::new(1);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} bars (all runs, batched)")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let groups = match a.batch_groups {
            0 if compute.info().backend == "cpu" => std::thread::available_parallelism().map_or(1, usize::from),
            0 => 1,
            n => n,
        }
        .clamp(1, sets.len().max(1));
        let make = |p: &tenor_backtest::strategies::Params, pricer| {
            strategies::build_priced(&name, p, pricer).map_err(to_error)
        };
        let progress = |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        };
        // Several devices: the runs are split over them, each device prices its own lockstep
        // groups; bitwise the same results as one device.
        let out = if devices.len() > 1 {
            tenor_backtest::sweep::run_batched_sharded(
                &engine,
                &feed,
                &devices,
                &sets,
                groups,
                make,
                &|r| r.metrics,
                &progress,
            )
        } else {
            tenor_backtest::sweep::run_batched_groups_summarised(
                &engine,
                &feed,
                compute.clone(),
                &sets,
                groups,
                make,
                &|r| r.metrics,
                &progress,
            )
        };
        bar.finish();
        let s = out.stats;
        let note = format!(
            "pricing batched across runs in {groups} lockstep group(s){}: {} price_batch calls (one launch sequence \
             each) for {} group bars, {} requests, {} products",
            if devices.len() > 1 { format!(" on each of {} devices", devices.len()) } else { String::new() },
            s.calls,
            s.bars,
            s.requests,
            s.products
        );
        (out.results, Some(note))
    } else {
        let bar = ProgressBar::new(sets.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let counters = std::sync::Arc::new(tenor_backtest::batch::PricingCounters::default());
        let results = tenor_backtest::sweep::run_summarised(
            &engine,
            &feed,
            &sets,
            |p| {
                let pricer = tenor_backtest::batch::Pricer::direct_counted(compute.clone(), counters.clone());
                strategies::build_priced(&name, p, pricer).map_err(to_error)
            },
            &|r| r.metrics,
            &|| bar.inc(1),
        );
        bar.finish();
        let note = strategies::prices_options(&a.strategy).then(|| {
            format!(
                "pricing unbatched (one call per run and bar): {} price_batch calls, {} products",
                counters.calls(),
                counters.products()
            )
        });
        (results, note)
    };
    let wall = t0.elapsed().as_secs_f64();
    let mut sweep_file = sweep_file.ok_or_else(|| anyhow!("internal: no sweep output"))?;
    let sweep_path = sweep_file.path().to_path_buf();
    let mut w = csv::Writer::from_writer(&mut sweep_file);
    let keys: Vec<String> = axes.iter().map(|(k, _)| k.clone()).collect();
    let mut header = keys.clone();
    header.extend(
        ["total_return", "annual_return", "volatility", "sharpe", "sortino", "max_drawdown", "trades", "error"]
            .map(String::from),
    );
    w.write_record(&header)?;
    let mut ok = Vec::new();
    for (p, r) in sets.iter().zip(&results) {
        let mut row: Vec<String> = keys.iter().map(|k| p.get(k).map_or_else(String::new, |v| v.to_string())).collect();
        match r {
            Ok(m) => {
                let m = *m;
                row.extend(
                    [m.total_return, m.annual_return, m.volatility, m.sharpe, m.sortino, m.max_drawdown]
                        .map(|x| format!("{x:.6}")),
                );
                row.push(m.trades.to_string());
                row.push(String::new());
                ok.push((p, m));
            }
            Err(e) => {
                row.extend(std::iter::repeat_n(String::new(), 7));
                row.push(e.to_string());
            }
        }
        w.write_record(&row).with_context(|| format!("writing {}", sweep_path.display()))?;
    }
    w.flush().with_context(|| format!("writing {}", sweep_path.display()))?;
    drop(w);
    sweep_file.commit()?;
    ok.sort_by(|a, b| b.1.sharpe.total_cmp(&a.1.sharpe));
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} runs ({} valid) on {} bars in {wall:.2} s on {} threads; wrote {}",
        sets.len(),
        ok.len(),
        feed.len(),
        rayon::current_num_threads(),
        a.out.join("sweep.csv").display()
    )?;
    if let Some(note) = pricing {
        writeln!(out, "{note}")?;
    }
    writeln!(
        out,
        "top 10 by Sharpe:\n{:>30} {:>10} {:>10} {:>8} {:>8}",
        "params", "annual %", "vol %", "Sharpe", "maxDD %"
    )?;
    for (p, m) in ok.iter().take(10) {
        let ps = p.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",");
        writeln!(
            out,
            "{ps:>30} {:>10.2} {:>10.2} {:>8.3} {:>8.2}",
            100.0 * m.annual_return,
            100.0 * m.volatility,
            m.sharpe,
            100.0 * m.max_drawdown
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(equity: Vec<(i64, f64)>) -> RunResult {
        RunResult { strategy: "t".into(), equity, fills: vec![], dividends: 0.0, metrics: Default::default() }
    }

    #[test]
    fn the_chart_skips_non_finite_values_and_ranges_instead_of_hanging() {
        let dir = std::env::temp_dir().join(format!("tenor-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let path = dir.join("c.svg");
        // Only one finite point: no chart.
        let r = result(vec![(0, 1e6), (86_400, f64::INFINITY), (172_800, f64::NAN)]);
        assert!(!chart(&r, &path).expect("no error"));
        // Finite values whose padded range overflows: no chart.
        let r = result(vec![(0, -f64::MAX), (86_400, f64::MAX)]);
        assert!(!chart(&r, &path).expect("no error"));
        assert!(!path.exists());
        // Non-finite points among finite ones are left out; a flat curve still gets an axis.
        let r = result(vec![(0, 100.0), (86_400, f64::NAN), (172_800, 100.0)]);
        assert!(chart(&r, &path).expect("drawn"));
        assert!(path.exists());
        assert_eq!(padded(100.0, 100.0), Some(99.0..101.0));
        assert_eq!(padded(0.0, f64::INFINITY), None);
    }
}
