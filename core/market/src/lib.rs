//! # tenor-market: market data, curves, implied volatility and volatility surfaces
//!
//! * Loaders: Cboe quote-data chains ([`cboe`]), Yahoo chain CSVs ([`yahoo`]), US Treasury
//!   par-yield files in both published layouts ([`treasury`]); malformed input gets a
//!   [`MarketError`] naming file, line and column.
//! * Curves: a zero curve bootstrapped from par yields, log-linear on discount factors
//!   ([`curve`]); forwards and discount factors implied by put-call parity ([`parity`]).
//! * Implied volatility of whole chains in one launch of the `implied_vol` kernel on the
//!   `Compute` port ([`iv`]), every quote accounted for.
//! * Raw SVI slices with the Gatheral-Jacquier no-arbitrage checks and a surface interpolated
//!   in total variance ([`svi`], [`surface`]), and its SVG plot ([`plot`]).
//! * The example SPX book of `tenor book spx`: Europeans at Cboe's quoted IVs, Asians and
//!   barriers, with the Treasury rate and parity dividends ([`spx_book`]).

pub mod cboe;
pub mod curve;
pub mod error;
pub mod iv;
pub mod parity;
pub mod plot;
pub mod quotes;
pub mod spx_book;
pub mod surface;
pub mod svi;
pub mod treasury;
pub mod yahoo;

pub use error::{MarketError, Result};
