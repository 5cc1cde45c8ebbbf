//! `tenor backtest`: run a strategy (or a parameter sweep) on market data on a backend, writing
//! trades.csv, equity.csv, metrics.json and an equity and drawdown chart.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use tenor_app::backtest::{refuse, BacktestRequest, Settings, MAX_SWEEP_RUNS};
use tenor_backtest::strategies::Params;

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

/// The settings of the flags (checked by the library).
fn settings(a: &BacktestArgs) -> Settings {
    Settings {
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
    }
}

fn parse_kv(s: &str) -> anyhow::Result<(String, f64)> {
    let (k, v) = s.split_once('=').ok_or_else(|| anyhow!("--param {s:?}: expected name=value"))?;
    let v: f64 = v.trim().parse().map_err(|_| anyhow!("--param {s:?}: {v:?} is not a number"))?;
    Ok((k.trim().to_owned(), v))
}

fn parse_sweep(s: &str) -> anyhow::Result<(String, Vec<f64>)> {
    let (k, r) = s.split_once('=').ok_or_else(|| anyhow!("--sweep {s:?}: expected name=start:stop:step"))?;
    let p: Vec<f64> = r
        .split(':')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow!("--sweep {s:?}: bounds must be numbers"))?;
    let [a, b, step] = p[..] else { bail!("--sweep {s:?}: expected start:stop:step") };
    if !(a.is_finite() && b.is_finite() && step.is_finite()) {
        return Err(refuse("sweep", s, "start, stop and step must be finite").into());
    }
    if step <= 0.0 || b < a {
        return Err(refuse("sweep", s, "needs step > 0 and stop >= start (at least one run)").into());
    }
    let n = ((b - a) / step + 1e-9).floor() + 1.0;
    if n > MAX_SWEEP_RUNS as f64 {
        bail!("--sweep {s:?}: {n} values; at most {MAX_SWEEP_RUNS} runs are allowed (coarsen the step)");
    }
    let n = n as usize;
    Ok((k.trim().to_owned(), (0..n).map(|i| a + i as f64 * step).collect()))
}

/// Runs the backtest or the sweep.
///
/// # Errors
/// As [`tenor_app::backtest::run_to_folder`], and a malformed `--param` or `--sweep`.
pub fn run(a: &BacktestArgs) -> anyhow::Result<ExitCode> {
    let sweeps: Vec<(String, Vec<f64>)> = a.sweeps.iter().map(|s| parse_sweep(s)).collect::<anyhow::Result<_>>()?;
    let params: Params = a.params.iter().map(|s| parse_kv(s)).collect::<anyhow::Result<_>>()?;
    let req = BacktestRequest {
        strategy: a.strategy.clone(),
        data: a.data.clone(),
        backend: a.backend.clone(),
        params,
        sweeps,
        unbatched: a.unbatched,
        batch_groups: a.batch_groups,
        settings: settings(a),
        out: a.out.clone(),
    };
    let bar = crate::progress::bar("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}");
    Ok(crate::print(&tenor_app::backtest::run_to_folder(&req, &bar)?))
}
