//! Trades at expiry (`maturity` 0): each is worth what it pays now, valued on the host.
//!
//! | kind | value at `maturity = 0` (each product's [`crate::products::Product::at_expiry`]) |
//! | --- | --- |
//! | european, american, heston | intrinsic `max(w (S - K), 0)` |
//! | asian_geo, asian_arith | intrinsic: every fixing `T j / n` is today, so the average is `S` |
//! | barrier, breached at `S` | knock-out: the rebate; knock-in: intrinsic (the spec's rule) |
//! | barrier, not breached | knock-out: intrinsic; knock-in: the rebate (paid at expiry, now) |
//!
//! Greeks are the limits as the maturity goes to 0: delta the payoff's slope (`w` in the money,
//! 0 out of it, `w / 2` at the money, the average of the one-sided limits); gamma 0, or not
//! finite at the money (written empty); vega and rho 0. Theta (per year of calendar time) is
//! the limit of `-dV/dT` for the European, American and Heston kinds away from the money:
//! in the money `w (q S - r K)` for the European (the forward's carry), `min(0, w (q S - r K))`
//! for the American (which may be exercised instead), 0 out of the money; at the money it
//! diverges (`-S vol / (2 sqrt(2 pi T))`) and, for barriers and Asians, it depends on the
//! schedule, so it is written empty there.

use super::trade::Trade;
use crate::types::Greeks;

/// Price and Greek limits of `trade` at expiry (its maturity is 0). Non-finite Greeks are
/// left empty by the book pricer's output filter.
pub(crate) fn at_expiry(trade: &Trade) -> Greeks {
    let v = trade.kind.vanilla();
    let (w, s, k) = (v.option.sign(), v.spot, v.strike);
    let intrinsic = v.option.payoff(s, k);
    let moneyness = w * (s - k);
    let slope = if moneyness > 0.0 {
        w
    } else if moneyness < 0.0 {
        0.0
    } else {
        0.5 * w
    };
    let gamma = if moneyness == 0.0 { f64::INFINITY } else { 0.0 };
    let carry = if moneyness > 0.0 { w * (v.dividend * s - v.rate * k) } else { 0.0 };
    let atm_theta = if moneyness == 0.0 { f64::NAN } else { carry };
    trade.kind.at_expiry(Greeks { price: intrinsic, delta: slope, gamma, vega: 0.0, theta: atm_theta, rho: 0.0 })
}
