//! # Market data: readers for the real data Tenor's examples are built from
//!
//! * [`cboe`]: Cboe delayed-quote option chain downloads;
//! * [`treasury`]: US Treasury daily par yield curves, converted to continuous rates;
//! * [`spx`]: the example SPX book (Europeans at quoted IVs, Asians, barriers) with its
//!   rate and dividend conventions.

pub mod cboe;
pub mod error;
pub mod spx;
pub mod treasury;

pub use cboe::{read_cboe, CboeChain, Quote, StrikeRow};
pub use error::MarketError;
pub use spx::{build_spx_book, ExpiryParams, SpxBook};
pub use treasury::{read_par_curve, ParCurve};
