//! `greeks.csv` (`docs/basket-job.md`): `greek,asset,other,value,stderr`, one row per value, the
//! assets by their names, numbers in shortest round-trip form (equal text is equal bits).

use super::engine::GreekRow;
use super::job::BasketJob;
use crate::portfolio::write::number;

/// The header of `greeks.csv`.
pub const GREEKS_HEADER: &str = "greek,asset,other,value,stderr";

/// The text of `greeks.csv` for `rows` of `job`: the header, then each row with its assets'
/// names (empty where it has none) and an empty `stderr` where none is estimated. Asset names
/// with a comma, a quote or a line break are quoted as RFC 4180 says.
#[must_use]
pub fn greeks_csv(job: &BasketJob, rows: &[GreekRow]) -> String {
    let name = |i: Option<usize>| i.and_then(|i| job.assets.get(i)).map_or_else(String::new, |a| quoted(&a.name));
    let mut out = String::with_capacity(64 * (rows.len() + 1));
    out.push_str(GREEKS_HEADER);
    out.push('\n');
    for r in rows {
        out.push_str(r.greek);
        out.push(',');
        out.push_str(&name(r.asset));
        out.push(',');
        out.push_str(&name(r.other));
        out.push(',');
        out.push_str(&number(r.value));
        out.push(',');
        if let Some(se) = r.stderr {
            out.push_str(&number(se));
        }
        out.push('\n');
    }
    out
}

fn quoted(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}
