//! The trades a portfolio file holds: an id, a line and the terms of one kind of the product
//! table ([`crate::products`]).

use crate::products::CellWriter;
use crate::types::OptionType;

pub use crate::products::barrier::{barrier_type_name, parse_barrier_type};
pub use crate::products::{AsianTrade, BarrierTrade, HestonParams, HestonTrade, Kind, TradeKind};

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
        let mut row = vec![String::new(); super::COLUMNS.len()];
        for (cell, text) in row.iter_mut().zip([
            self.id.clone(),
            self.kind().as_str().to_owned(),
            opt.to_owned(),
            num(v.spot),
            num(v.strike),
            num(v.maturity),
            num(v.rate),
            num(v.dividend),
        ]) {
            *cell = text;
        }
        let mut cells = CellWriter { cells: &mut row };
        if self.kind().needs_vol() {
            cells.number("vol", v.vol);
        }
        self.kind.write(&mut cells);
        row
    }
}
