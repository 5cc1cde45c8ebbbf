//! `tenor surface CHAIN`: implied volatilities of a whole chain on a backend, per-expiry SVI
//! fits with their no-arbitrage checks, and the surface plot.
//!
//! CHAIN is a folder of Cboe quote-data downloads, one Cboe file, or a Yahoo chain CSV (which
//! needs `--as-of`, the snapshot date, because the file has none). Writes into `--out`:
//! `implied_vols.csv` (every quote: mid implied vol or the reason there is none, the slice's
//! parity forward and discount factor, the SVI vol and the fit error), `svi_params.csv` (per
//! slice: parameters, fit errors, butterfly checks), `calendar.csv` (calendar checks between
//! consecutive slices) and `surface.svg`.
use std::path::PathBuf;
use std::process::ExitCode;

use chrono::NaiveDate;
use tenor_app::surface::SurfaceRequest;

/// Arguments of `tenor surface`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A folder of Cboe quote-data CSVs, one Cboe CSV, or a Yahoo chain CSV.
    pub chain: PathBuf,
    /// Snapshot date (YYYY-MM-DD) for a Yahoo chain; Cboe files carry their own.
    #[arg(long)]
    pub as_of: Option<NaiveDate>,
    /// Output folder (created if missing).
    #[arg(long, default_value = "surface_out")]
    pub out: PathBuf,
    /// Compute backend (`cpu`, `sim`, `auto`, ...).
    #[arg(long, env = "TENOR_BACKEND", default_value = "cpu", help = tenor_registry::help())]
    pub backend: String,
    /// A US Treasury par-yield CSV: the zero curve bootstrapped from the latest date on or
    /// before the snapshot is printed beside each slice's parity rate.
    #[arg(long)]
    pub rates: Option<PathBuf>,
    /// Most slices drawn in the plot.
    #[arg(long, default_value_t = 12)]
    pub plot_slices: usize,
}

/// Runs the command.
///
/// # Errors
/// As [`tenor_app::surface::surface_to_folder`].
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let req = SurfaceRequest {
        chain: args.chain.clone(),
        as_of: args.as_of,
        out: args.out.clone(),
        backend: args.backend.clone(),
        rates: args.rates.clone(),
        plot_slices: args.plot_slices,
    };
    let bar = crate::progress::bar("fitting SVI {bar:30} {pos}/{len} {msg}");
    Ok(crate::print(&tenor_app::surface::surface_to_folder(&req, &bar)?))
}
