//! The event loop, the portfolio and the strategy interface.

use thiserror::Error;

use crate::data::Bar;
use crate::feed::Feed;
use crate::metrics::{self, Metrics};
use crate::order::{fill_price, CostModel, Order, OrderKind};

/// An error a strategy reports (pricing failures, bad parameters); it stops the run.
#[derive(Debug, Error)]
#[error("strategy {strategy} at bar {bar}: {message}")]
pub struct StrategyError {
    /// Strategy name.
    pub strategy: String,
    /// Bar index.
    pub bar: usize,
    /// What went wrong.
    pub message: String,
}

/// A strategy: sees each bar after it closed, and only history up to it.
pub trait Strategy {
    /// Name in reports.
    fn name(&self) -> String;
    /// Before the first bar.
    fn start(&mut self, _ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        Ok(())
    }
    /// After bar `ctx.index()` closed. Orders placed here fill from the next bar on.
    fn on_bar(&mut self, ctx: &mut Context<'_>) -> Result<(), StrategyError>;
    /// After one of the strategy's orders filled (before `on_bar` of that bar). Orders of this
    /// bar not yet filled are still in `ctx.open_orders()`; cancelling one here stops it filling
    /// on this bar (one-cancels-other).
    fn on_fill(&mut self, _ctx: &mut Context<'_>, _fill: &Fill) -> Result<(), StrategyError> {
        Ok(())
    }
    /// After the last bar.
    fn end(&mut self, _ctx: &mut Context<'_>) -> Result<(), StrategyError> {
        Ok(())
    }
}

/// One fill.
#[derive(Debug, Clone, PartialEq)]
pub struct Fill {
    /// Order id.
    pub order: u64,
    /// Bar time of the fill.
    pub time: i64,
    /// Symbol.
    pub symbol: String,
    /// Signed quantity.
    pub quantity: f64,
    /// Fill price (after slippage).
    pub price: f64,
    /// Commission paid.
    pub commission: f64,
}

/// What a buy fill does when its cost (shares x fill price + commission) exceeds the cash
/// at the fill: the account never borrows silently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CashPolicy {
    /// The order is refused and removed (backtrader's broker does the same); counted in
    /// [`Metrics::refused_orders`](crate::metrics::Metrics::refused_orders).
    #[default]
    Refuse,
    /// The order fills for the most shares the cash pays for, commission included (whole shares
    /// when the order was for whole shares); refused when that is none. Counted in
    /// [`Metrics::resized_orders`](crate::metrics::Metrics::resized_orders).
    Resize,
}

/// Engine settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineConfig {
    /// Starting cash.
    pub cash: f64,
    /// Costs.
    pub costs: CostModel,
    /// Bars per year for annualising (252 for daily bars), counted on the primary feed (the
    /// first symbol): see [`crate::metrics`].
    pub periods_per_year: f64,
    /// Buys the cash does not cover.
    pub cash_policy: CashPolicy,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            cash: 1_000_000.0,
            costs: CostModel::default(),
            periods_per_year: 252.0,
            cash_policy: CashPolicy::Refuse,
        }
    }
}

/// Most shares a buy of `wanted` shares at `price` can take with `cash`, commission included:
/// `q (price + per_share + bps price) <= cash` and `q price <= cash - minimum`; whole shares
/// when `wanted` is whole. 0 when nothing is affordable.
fn affordable(wanted: f64, price: f64, cash: f64, costs: &CostModel) -> f64 {
    let per_share_cost = price + costs.per_share + costs.bps * 1e-4 * price;
    let q = (cash / per_share_cost).min((cash - costs.minimum) / price).min(wanted).max(0.0);
    let q = if wanted.fract() == 0.0 { q.floor() } else { q };
    // Rounding can leave the cost a hair above the cash: step down until it fits.
    if q > 0.0 && q * price + costs.commission(q, price) > cash {
        return if wanted.fract() == 0.0 { (q - 1.0).max(0.0) } else { q * (1.0 - 1e-12) };
    }
    q
}

/// What a strategy sees and does.
pub struct Context<'a> {
    feed: &'a Feed,
    t: usize,
    cash: f64,
    positions: Vec<f64>,
    marks: std::collections::BTreeMap<String, f64>,
    pending: Vec<Order>,
    next_id: u64,
    strategy: String,
}

impl<'a> Context<'a> {
    /// Index of the current bar.
    pub fn index(&self) -> usize {
        self.t
    }
    /// Time of the current bar (seconds since the epoch, UTC, at the bar's end; a daily bar at
    /// 23:59:59 UTC of its date).
    pub fn time(&self) -> i64 {
        self.feed.times[self.t]
    }
    /// Symbols of the feed.
    pub fn symbols(&self) -> &[String] {
        &self.feed.symbols
    }
    /// The current bar of symbol `s`, if it traded.
    pub fn bar(&self, s: usize) -> Option<&Bar> {
        self.feed.bars.get(s).and_then(|b| b[self.t].as_ref())
    }
    /// Bars of symbol `s` up to and including the current one (missing bars skipped). Nothing
    /// after the current bar is reachable.
    pub fn history(&self, s: usize) -> impl DoubleEndedIterator<Item = &Bar> + '_ {
        self.feed.bars.get(s).into_iter().flat_map(move |b| b[..=self.t].iter().flatten())
    }
    /// Cash.
    pub fn cash(&self) -> f64 {
        self.cash
    }
    /// Shares held of symbol `s`.
    pub fn position(&self, s: usize) -> f64 {
        self.positions.get(s).copied().unwrap_or(0.0)
    }
    /// Last close of symbol `s` at or before the current bar.
    pub fn last_close(&self, s: usize) -> Option<f64> {
        self.history(s).next_back().map(|b| b.close)
    }
    /// Equity: cash, shares at their last close, and marked instruments.
    pub fn equity(&self) -> f64 {
        let stock: f64 = (0..self.positions.len()).map(|s| self.position(s) * self.last_close(s).unwrap_or(0.0)).sum();
        self.cash + stock + self.marks.values().sum::<f64>()
    }
    /// Places an order for `quantity` shares (signed) of symbol `s`; returns its id.
    pub fn order(&mut self, s: usize, quantity: f64, kind: OrderKind) -> u64 {
        self.next_id += 1;
        self.pending.push(Order { id: self.next_id, symbol: s, quantity, kind, placed: self.t });
        self.next_id
    }
    /// Cancels an open order. Called from [`Strategy::on_fill`], it also stops an order due to
    /// fill later on the same bar (one-cancels-other works).
    pub fn cancel(&mut self, id: u64) {
        self.pending.retain(|o| o.id != id);
    }
    /// Open orders (during [`Strategy::on_fill`], including the orders of the current bar not
    /// yet filled).
    pub fn open_orders(&self) -> &[Order] {
        &self.pending
    }
    /// Books a cash flow of an instrument the strategy values itself (an option premium, a
    /// settlement).
    pub fn book_cash(&mut self, amount: f64) {
        self.cash += amount;
    }
    /// Sets the mark (present value) of an instrument the strategy holds, counted in equity;
    /// `None` removes it.
    pub fn set_mark(&mut self, name: &str, value: Option<f64>) {
        match value {
            Some(v) => {
                self.marks.insert(name.to_owned(), v);
            }
            None => {
                self.marks.remove(name);
            }
        }
    }
    /// A strategy error at the current bar.
    pub fn error(&self, message: impl Into<String>) -> StrategyError {
        StrategyError { strategy: self.strategy.clone(), bar: self.t, message: message.into() }
    }
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Strategy name.
    pub strategy: String,
    /// (time, equity) after each bar's close.
    pub equity: Vec<(i64, f64)>,
    /// Fills in time order.
    pub fills: Vec<Fill>,
    /// Dividends received in total.
    pub dividends: f64,
    /// Performance metrics.
    pub metrics: Metrics,
}

/// The backtesting engine.
#[derive(Debug, Clone)]
pub struct Engine {
    /// Settings.
    pub config: EngineConfig,
}

impl Engine {
    /// An engine with `config`.
    pub fn new(config: EngineConfig) -> Self {
        Self { config }
    }

    /// Runs `strategy` over `feed`.
    ///
    /// # Errors
    /// The first [`StrategyError`].
    pub fn run(&self, feed: &Feed, strategy: &mut dyn Strategy) -> Result<RunResult, StrategyError> {
        let name = strategy.name();
        let mut ctx = Context {
            feed,
            t: 0,
            cash: self.config.cash,
            positions: vec![0.0; feed.symbols.len()],
            marks: Default::default(),
            pending: vec![],
            next_id: 0,
            strategy: name.clone(),
        };
        let (mut equity, mut fills, mut dividends) = (Vec::with_capacity(feed.len()), Vec::new(), 0.0);
        let (mut refused, mut resized) = (0usize, 0usize);
        strategy.start(&mut ctx)?;
        for t in 0..feed.len() {
            ctx.t = t;
            // 1. Dividends going ex on this bar are paid to the holder of record: the position
            //    held at the previous close, before this bar's fills (a buyer at the ex-date
            //    open gets nothing, a seller at it keeps the dividend).
            for (s, bars) in feed.bars.iter().enumerate() {
                if let Some(b) = bars[t] {
                    if b.dividend != 0.0 && ctx.positions[s] != 0.0 {
                        let d = ctx.positions[s] * b.dividend;
                        ctx.cash += d;
                        dividends += d;
                    }
                }
            }
            // 2. Orders placed before this bar fill on it, in the order they were placed. They
            //    stay in the open orders until they fill, so `on_fill` sees (and can cancel) the
            //    orders of this bar not yet filled; orders it places wait for the next bar.
            let due: Vec<u64> = ctx.pending.iter().filter(|o| o.placed < t).map(|o| o.id).collect();
            for id in due {
                let Some(i) = ctx.pending.iter().position(|o| o.id == id) else { continue }; // cancelled
                let o = &ctx.pending[i];
                let Some(bar) = feed.bars[o.symbol][t] else { continue }; // no bar: waits
                let Some(price) = fill_price(o, bar.open, bar.high, bar.low, &self.config.costs) else { continue };
                let o = ctx.pending.remove(i);
                if !(o.quantity.is_finite() && price.is_finite() && price > 0.0) {
                    return Err(ctx.error(format!(
                        "order {} for {} shares of {} fills at {price} on bar time {}: not a finite positive trade \
                         (prices this small or large overflow the quantities)",
                        o.id, o.quantity, feed.symbols[o.symbol], bar.time
                    )));
                }
                let mut quantity = o.quantity;
                let costs = &self.config.costs;
                if quantity > 0.0 && quantity * price + costs.commission(quantity, price) > ctx.cash {
                    let q = match self.config.cash_policy {
                        CashPolicy::Refuse => 0.0,
                        CashPolicy::Resize => affordable(quantity, price, ctx.cash, costs),
                    };
                    if q <= 0.0 {
                        refused += 1;
                        continue;
                    }
                    resized += 1;
                    quantity = q;
                }
                let commission = costs.commission(quantity, price);
                ctx.cash -= quantity * price + commission;
                ctx.positions[o.symbol] += quantity;
                let f = Fill {
                    order: o.id,
                    time: bar.time,
                    symbol: feed.symbols[o.symbol].clone(),
                    quantity,
                    price,
                    commission,
                };
                strategy.on_fill(&mut ctx, &f)?;
                fills.push(f);
            }
            // 3. The strategy sees the closed bar.
            strategy.on_bar(&mut ctx)?;
            let e = ctx.equity();
            if !(e.is_finite() && ctx.cash.is_finite()) {
                return Err(ctx.error(format!(
                    "the account is no longer a finite number at bar time {}: cash {}, equity {e} \
                     (the prices, cash or costs are outside the range a run can represent)",
                    feed.times[t], ctx.cash
                )));
            }
            equity.push((feed.times[t], e));
        }
        strategy.end(&mut ctx)?;
        let primary: Vec<(i64, f64)> = equity
            .iter()
            .zip(feed.bars.first().map(Vec::as_slice).unwrap_or(&[]))
            .filter(|(_, bar)| bar.is_some())
            .map(|(point, _)| *point)
            .collect();
        let mut metrics = metrics::compute(&primary, &fills, self.config.periods_per_year);
        metrics.refused_orders = refused;
        metrics.resized_orders = resized;
        Ok(RunResult { strategy: name, equity, fills, dividends, metrics })
    }
}
