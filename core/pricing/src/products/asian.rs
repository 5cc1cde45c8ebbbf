//! What the two average-price kinds (`asian_geo`, `asian_arith`) share: their terms, their one
//! column and their expiry rule.
//!
//! Column: `fixings`, the number `n` of averaging dates `t_j = maturity j / n`, j = 1..n
//! (required, 1 to [`crate::portfolio::parse::MAX_FIXINGS`]). At expiry every fixing is today,
//! so the average is the spot and the option is worth its payoff; its theta depends on the
//! schedule and is written empty.

use super::CellWriter;
use crate::mc::{AsianOption, FixingSchedule};
use crate::portfolio::cells::RowReader;
use crate::types::{Greeks, Vanilla};

/// A fixed-strike average-price Asian option on `fixings` equally spaced dates
/// `t_j = maturity * j / n`, j = 1..n: a row of kind `asian_geo` or `asian_arith`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsianTrade {
    /// The option's terms (the strike applies to the average).
    pub vanilla: Vanilla,
    /// Number of averaging dates n >= 1.
    pub fixings: u32,
}

/// The columns of both kinds.
pub(super) const COLUMNS: &[&str] = &["fixings"];

/// Reads the `fixings` cell (required).
pub(super) fn read(row: &mut RowReader<'_>, vanilla: Option<Vanilla>) -> Option<AsianTrade> {
    let fixings = row.required("fixings").and_then(|cell| row.fixings(cell));
    Some(AsianTrade { vanilla: vanilla?, fixings: fixings? })
}

/// Writes the `fixings` cell.
pub(super) fn write(a: &AsianTrade, cells: &mut CellWriter<'_>) {
    cells.set("fixings", a.fixings.to_string());
}

/// The payoff now; theta empty.
pub(super) fn at_expiry(limits: Greeks) -> Greeks {
    Greeks { theta: f64::NAN, ..limits }
}

/// The trade as the Monte Carlo engine's arguments: the spec's uniform schedule.
pub(super) fn mc_arguments(a: &AsianTrade) -> AsianOption {
    AsianOption { vanilla: a.vanilla, schedule: FixingSchedule::uniform(a.vanilla.maturity, a.fixings) }
}
