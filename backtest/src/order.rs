//! Orders, fills and the cost models.
//!
//! Fill rules (no look-ahead): an order placed while handling bar `t` is considered from bar
//! `t + 1` on. A market order fills at that bar's open; a buy limit at `L` fills when the bar's
//! low reaches `L`, at `min(open, L)` (a gap through the limit fills at the better open), a sell
//! limit symmetrically; a buy stop at `S` fills when the high reaches `S`, at `max(open, S)`, a
//! sell stop symmetrically. Slippage worsens market and stop fills by `slippage_bps`; limit
//! fills get their limit or better and no slippage. Orders stay open until filled or cancelled.

/// What kind of order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OrderKind {
    /// At the next bar's open.
    Market,
    /// At the limit price or better.
    Limit(f64),
    /// Becomes a market order when the stop price trades.
    Stop(f64),
}

/// An open order.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// Order id, unique in a run.
    pub id: u64,
    /// Symbol index in the feed.
    pub symbol: usize,
    /// Signed quantity in shares (positive buys).
    pub quantity: f64,
    /// Kind.
    pub kind: OrderKind,
    /// Bar index at which it was placed.
    pub placed: usize,
}

/// Commission and slippage.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CostModel {
    /// Commission per share.
    pub per_share: f64,
    /// Commission in basis points of traded notional.
    pub bps: f64,
    /// Minimum commission per fill.
    pub minimum: f64,
    /// Slippage on market and stop fills, basis points of price.
    pub slippage_bps: f64,
}

impl CostModel {
    /// Commission for `quantity` shares at `price`.
    pub fn commission(&self, quantity: f64, price: f64) -> f64 {
        if quantity == 0.0 {
            return 0.0;
        }
        (self.per_share * quantity.abs() + self.bps * 1e-4 * (quantity * price).abs()).max(self.minimum)
    }
}

/// The price at which `order` fills on a bar with `open`, `high`, `low`, if it does.
pub fn fill_price(order: &Order, open: f64, high: f64, low: f64, costs: &CostModel) -> Option<f64> {
    let buy = order.quantity > 0.0;
    let slip = |p: f64| if buy { p * (1.0 + costs.slippage_bps * 1e-4) } else { p * (1.0 - costs.slippage_bps * 1e-4) };
    match order.kind {
        OrderKind::Market => Some(slip(open)),
        OrderKind::Limit(l) if buy => (low <= l).then(|| open.min(l)),
        OrderKind::Limit(l) => (high >= l).then(|| open.max(l)),
        OrderKind::Stop(s) if buy => (high >= s).then(|| slip(open.max(s))),
        OrderKind::Stop(s) => (low <= s).then(|| slip(open.min(s))),
    }
}
