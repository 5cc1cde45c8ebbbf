//! Several symbols aligned on timestamps. A symbol without a bar at a timestamp is explicit
//! (`None`), never filled forward silently.

use crate::data::{Bar, Series};

/// Aligned bars: `times[t]` and, per symbol, `bars[s][t]`.
#[derive(Debug, Clone)]
pub struct Feed {
    /// Symbols, in the order given.
    pub symbols: Vec<String>,
    /// The union of all timestamps, increasing.
    pub times: Vec<i64>,
    /// `bars[symbol][t]`: the symbol's bar at `times[t]`, if any.
    pub bars: Vec<Vec<Option<Bar>>>,
}

impl Feed {
    /// Aligns `series` on the union of their timestamps.
    pub fn new(series: Vec<Series>) -> Self {
        let mut times: Vec<i64> = series.iter().flat_map(|s| s.bars.iter().map(|b| b.time)).collect();
        times.sort_unstable();
        times.dedup();
        let bars = series
            .iter()
            .map(|s| {
                let mut out = vec![None; times.len()];
                let mut t = 0;
                for b in &s.bars {
                    while times[t] < b.time {
                        t += 1;
                    }
                    out[t] = Some(*b);
                }
                out
            })
            .collect();
        Self { symbols: series.into_iter().map(|s| s.symbol).collect(), times, bars }
    }

    /// Number of timestamps.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there is no bar at all.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Index of `symbol`.
    pub fn index(&self, symbol: &str) -> Option<usize> {
        self.symbols.iter().position(|s| s == symbol)
    }
}
