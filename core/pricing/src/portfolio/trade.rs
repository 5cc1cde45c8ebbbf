//! The trades a portfolio file holds, one type per kind of `shared/spec/portfolio-csv.md`.

use crate::types::{BarrierType, OptionType, Vanilla};

/// The six kinds of the portfolio format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// European exercise under Black-Scholes-Merton.
    European,
    /// American exercise under Black-Scholes-Merton.
    American,
    /// Single barrier, continuously or discretely monitored.
    Barrier,
    /// Fixed-strike average-price option on the geometric average.
    AsianGeo,
    /// Fixed-strike average-price option on the arithmetic average.
    AsianArith,
    /// European option under the Heston model.
    Heston,
}

impl Kind {
    /// All kinds, in the spec's order.
    pub const ALL: [Kind; 6] =
        [Kind::European, Kind::American, Kind::Barrier, Kind::AsianGeo, Kind::AsianArith, Kind::Heston];

    /// The name used in the `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::European => "european",
            Kind::American => "american",
            Kind::Barrier => "barrier",
            Kind::AsianGeo => "asian_geo",
            Kind::AsianArith => "asian_arith",
            Kind::Heston => "heston",
        }
    }

    /// Parses a `kind` cell (exact, lower case); `None` for anything else.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A single-barrier option (Reiner and Rubinstein 1991; Haug 2007, section 4.17.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarrierTrade {
    /// The underlying European option (spot, strike, maturity, rate, dividend, vol).
    pub vanilla: Vanilla,
    /// Barrier level in currency units.
    pub barrier: f64,
    /// Direction and effect.
    pub barrier_type: BarrierType,
    /// Cash rebate (Haug's convention: paid at the hit for a knock-out, at expiry for a
    /// knock-in never knocked in).
    pub rebate: f64,
    /// `None`: continuous monitoring; `Some(n)`: monitored at `t_j = maturity * j / n`, j = 1..n.
    pub fixings: Option<u32>,
}

/// A fixed-strike average-price Asian option on `fixings` equally spaced dates
/// `t_j = maturity * j / n`, j = 1..n.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsianTrade {
    /// The option's terms (the strike applies to the average).
    pub vanilla: Vanilla,
    /// Number of averaging dates n >= 1.
    pub fixings: u32,
}

/// Heston (1993) model parameters, per year.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HestonParams {
    /// Initial variance.
    pub v0: f64,
    /// Mean-reversion speed.
    pub kappa: f64,
    /// Long-run variance.
    pub theta: f64,
    /// Volatility of variance.
    pub xi: f64,
    /// Correlation between the spot and variance Brownian motions.
    pub rho: f64,
}

/// A European option under Heston; `vanilla.vol` holds the file's `vol` cell if given (ignored
/// by the model) or 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HestonTrade {
    /// The option's terms.
    pub vanilla: Vanilla,
    /// Model parameters.
    pub params: HestonParams,
}

/// A trade's economics, by kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TradeKind {
    /// `european`.
    European(Vanilla),
    /// `american` (parsed; pricing comes with the pricing-breadth work).
    American(Vanilla),
    /// `barrier`.
    Barrier(BarrierTrade),
    /// `asian_geo`.
    AsianGeo(AsianTrade),
    /// `asian_arith`.
    AsianArith(AsianTrade),
    /// `heston` (parsed; pricing comes with the pricing-breadth work).
    Heston(HestonTrade),
}

impl TradeKind {
    /// The kind's tag.
    pub fn kind(&self) -> Kind {
        match self {
            TradeKind::European(_) => Kind::European,
            TradeKind::American(_) => Kind::American,
            TradeKind::Barrier(_) => Kind::Barrier,
            TradeKind::AsianGeo(_) => Kind::AsianGeo,
            TradeKind::AsianArith(_) => Kind::AsianArith,
            TradeKind::Heston(_) => Kind::Heston,
        }
    }

    /// The option terms shared by every kind.
    pub fn vanilla(&self) -> &Vanilla {
        match self {
            TradeKind::European(v) | TradeKind::American(v) => v,
            TradeKind::Barrier(b) => &b.vanilla,
            TradeKind::AsianGeo(a) | TradeKind::AsianArith(a) => &a.vanilla,
            TradeKind::Heston(h) => &h.vanilla,
        }
    }
}

/// One row of a portfolio: its id, the line it came from, and its economics.
#[derive(Debug, Clone, PartialEq)]
pub struct Trade {
    /// Trade identifier, unique in its file.
    pub id: String,
    /// 1-based line in the source file (0 for trades built in memory).
    pub line: u64,
    /// What the trade is.
    pub kind: TradeKind,
}

impl Trade {
    /// The kind's tag.
    pub fn kind(&self) -> Kind {
        self.kind.kind()
    }

    /// The trade as cells in [`super::COLUMNS`] order (empty = not applicable), the inverse of
    /// the parser. Numbers are written with Rust's shortest round-trip formatting, so parsing
    /// the row back gives bitwise the same trade.
    pub fn to_cells(&self) -> Vec<String> {
        let v = self.kind.vanilla();
        let num = super::write::number;
        let opt = match v.option {
            OptionType::Call => "call",
            OptionType::Put => "put",
        };
        let mut row = vec![
            self.id.clone(),
            self.kind().as_str().to_owned(),
            opt.to_owned(),
            num(v.spot),
            num(v.strike),
            num(v.maturity),
            num(v.rate),
            num(v.dividend),
            String::new(), // vol
            String::new(), // barrier
            String::new(), // barrier_type
            String::new(), // rebate
            String::new(), // fixings
            String::new(), // v0
            String::new(), // kappa
            String::new(), // theta
            String::new(), // xi
            String::new(), // rho
        ];
        if !matches!(self.kind, TradeKind::Heston(_)) {
            row[8] = num(v.vol);
        }
        match &self.kind {
            TradeKind::Barrier(b) => {
                row[9] = num(b.barrier);
                row[10] = barrier_type_name(b.barrier_type).to_owned();
                row[11] = num(b.rebate);
                if let Some(n) = b.fixings {
                    row[12] = n.to_string();
                }
            }
            TradeKind::AsianGeo(a) | TradeKind::AsianArith(a) => row[12] = a.fixings.to_string(),
            TradeKind::Heston(h) => {
                row[13] = num(h.params.v0);
                row[14] = num(h.params.kappa);
                row[15] = num(h.params.theta);
                row[16] = num(h.params.xi);
                row[17] = num(h.params.rho);
            }
            TradeKind::European(_) | TradeKind::American(_) => {}
        }
        row
    }
}

/// The `barrier_type` cell for a [`BarrierType`].
pub fn barrier_type_name(b: BarrierType) -> &'static str {
    match b {
        BarrierType::DownOut => "down_out",
        BarrierType::DownIn => "down_in",
        BarrierType::UpOut => "up_out",
        BarrierType::UpIn => "up_in",
    }
}

/// Parses a `barrier_type` cell.
pub fn parse_barrier_type(s: &str) -> Option<BarrierType> {
    match s {
        "down_out" => Some(BarrierType::DownOut),
        "down_in" => Some(BarrierType::DownIn),
        "up_out" => Some(BarrierType::UpOut),
        "up_in" => Some(BarrierType::UpIn),
        _ => None,
    }
}
