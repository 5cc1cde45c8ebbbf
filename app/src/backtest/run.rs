//! A backtest or a parameter sweep on market data, written as a folder of results.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _};
use tenor_backtest::strategies::{self, Params};
use tenor_backtest::{Engine, Feed};
use tenor_ports::Progress;

use super::outputs::{write_outputs, RUN_OUTPUTS};
use super::{engine_config, Settings};
use crate::report::Report;

/// Largest parameter grid a sweep may run.
pub const MAX_SWEEP_RUNS: usize = 100_000;

/// A backtest (no sweep axes) or a parameter sweep to run and write ([`run_to_folder`]).
#[derive(Debug, Clone)]
pub struct BacktestRequest {
    /// Strategy (the table of `tenor_backtest::strategies`).
    pub strategy: String,
    /// Market data files (the layouts of docs/backtest.md); symbol 0 is the first file.
    pub data: Vec<PathBuf>,
    /// Backend selector the strategy's pricing runs on (several devices share a sweep).
    pub backend: String,
    /// Strategy parameters.
    pub params: Params,
    /// Swept parameters and their values: the grid is the product.
    pub sweeps: Vec<(String, Vec<f64>)>,
    /// Price each run of an option strategy's sweep on its own instead of batching every bar
    /// of all runs into one call.
    pub unbatched: bool,
    /// Lockstep groups of a batched sweep; 0: one per core on the cpu backend, else 1.
    pub batch_groups: usize,
    /// Cash, costs, annualisation and cash policy.
    pub settings: Settings,
    /// Output folder.
    pub out: PathBuf,
}

/// Runs the backtest of `req`, or its sweep, and writes its folder: one run's
/// [`RUN_OUTPUTS`], or a sweep's `sweep.csv`; `progress` counts runs (or, for a batched sweep of
/// an option strategy, bars of all runs). The report is what `tenor backtest` prints.
///
/// # Errors
/// A setting out of range ([`ArgError`]), an output naming an input, unreadable data, an
/// unknown strategy or parameter, an unavailable backend, a failed run (a single run), an
/// unwritable output.
pub fn run_to_folder(req: &BacktestRequest, progress: &dyn Progress) -> anyhow::Result<Report> {
    let a = req;
    let mut report = Report::default();
    let config = engine_config(&a.settings)?;
    let inputs: Vec<(&str, &Path)> = a.data.iter().map(|p| ("data", p.as_path())).collect();
    let outputs = ["trades.csv", "equity.csv", "metrics.json", "equity.svg", "sweep.csv"].map(|f| a.out.join(f));
    let outputs: Vec<(&str, &Path)> = outputs.iter().map(|p| ("out", p.as_path())).collect();
    crate::paths::refuse_overwrite(&inputs, &outputs)?;
    let axes: Vec<(String, Vec<f64>)> = a.sweeps.clone();
    let base: Params = a.params.clone();
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
        report.line(format!(
            "{} on {} ({} bars, {:.2} s, backend {})",
            r.strategy,
            a.data[0].display(),
            feed.len(),
            t0.elapsed().as_secs_f64(),
            compute.info().backend
        ));
        report.line(format!(
            "  total return {:+.2} %, annual {:+.2} %, vol {:.2} %, Sharpe {:.3}, Sortino {:.3}",
            100.0 * m.total_return,
            100.0 * m.annual_return,
            100.0 * m.volatility,
            m.sharpe,
            m.sortino
        ));
        report.line(format!(
            "  max drawdown {:.2} % over {} bars, turnover {:.2}/yr, hit rate {:.1} %, {} fills, dividends {:.2}",
            100.0 * m.max_drawdown,
            m.max_drawdown_bars,
            m.turnover,
            100.0 * m.hit_rate,
            m.trades,
            r.dividends
        ));
        report.line(format!(
            "  annualised on the primary feed {} ({} returns, {} bars per year); buys refused for cash {}, resized {}",
            feed.symbols[0], m.periods, a.settings.periods_per_year, m.refused_orders, m.resized_orders
        ));
        let files = if charted {
            "trades.csv,equity.csv,metrics.json,equity.svg"
        } else {
            "trades.csv,equity.csv,metrics.json"
        };
        report.line(format!("  wrote {}/{{{files}}}", a.out.display()));
        if !charted {
            report.line("  no equity.svg: fewer than two finite equity points");
        }
        return Ok(report);
    }
    let runs: usize = axes.iter().map(|(_, v)| v.len()).product();
    if runs > MAX_SWEEP_RUNS {
        bail!(
            "{} asks for {runs} runs; at most {MAX_SWEEP_RUNS} are allowed (coarsen a step)",
            crate::words::setting("sweep")
        );
    }
    // A parameter the strategy does not take is an error for the whole sweep, as with --param.
    if let Some(first) = tenor_backtest::sweep::grid(&axes).into_iter().next() {
        let mut p = base.clone();
        p.extend(first);
        if let Err(e @ strategies::ParamError::Unknown { .. }) = strategies::build(&a.strategy, &p, compute.clone()) {
            return Err(e.into());
        }
    }
    let sets: Vec<Params> = tenor_backtest::sweep::sets(&axes, &base);
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
        progress.message("bars (all runs, batched)");
        let groups = match a.batch_groups {
            0 if compute.info().backend == "cpu" => std::thread::available_parallelism().map_or(1, usize::from),
            0 => 1,
            n => n,
        }
        .clamp(1, sets.len().max(1));
        let make = |p: &tenor_backtest::strategies::Params, pricer| {
            strategies::build_priced(&name, p, pricer).map_err(to_error)
        };
        let last_total = std::sync::atomic::AtomicU64::new(u64::MAX);
        let bars = |done, total| {
            if last_total.swap(total, std::sync::atomic::Ordering::Relaxed) != total {
                progress.start(total);
            }
            progress.set(done);
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
                &bars,
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
                &bars,
            )
        };
        progress.finish();
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
        progress.message("runs");
        let bar = tenor_ports::progress::Steps::new(progress, sets.len() as u64);
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
            &|| bar.inc(),
        );
        progress.finish();
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
    let out = &mut report.out;
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
    Ok(report)
}
