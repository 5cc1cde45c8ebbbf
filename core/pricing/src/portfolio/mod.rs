//! # Portfolios: the `tenor price` exchange format and the book pricer
//!
//! * [`parse`]: reads a portfolio CSV exactly per `shared/spec/portfolio-csv.md` (any column
//!   order, unknown columns rejected by name, empty cell = not applicable, every bad row
//!   reported with file, line and column while the good rows are kept).
//! * [`trade`]: one type per kind ([`TradeKind`]).
//! * [`price`]: [`price_book`] dispatches each trade to a closed form or a Monte Carlo engine
//!   on any [`tenor_ports::Compute`] backend, with Greeks.
//! * [`write`]: the output rows `id,price,stderr,delta,gamma,vega,theta,rho,method,backend`
//!   and the portfolio format itself (for generated books).

pub mod error;
mod expiry;
pub mod lsm_rows;
pub mod parse;
pub mod price;
pub mod shard;
pub mod trade;
pub mod write;

pub use error::{Location, PortfolioError, RowError, RowProblem};
pub use parse::{parse_portfolio, read_portfolio, ParsedPortfolio, COLUMNS, REQUIRED_COLUMNS};
pub use price::{
    price_book, price_book_timed, price_book_with, price_trade, priced_as_symmetric_put, BookConfig, BookRun,
    BookTimes, Engine, PriceError, SettingError, MAX_PATHS, MAX_ROW_PATH_STEPS, MAX_STEPS, MAX_STREAMS,
};
pub use shard::{price_book_sharded, shard_book, trade_cost, BookSharding, TradeCost};
pub use trade::{AsianTrade, BarrierTrade, HestonParams, HestonTrade, Kind, Trade, TradeKind};
pub use write::{is_monte_carlo, write_portfolio, write_priced, PricedRow, MONTE_CARLO_METHODS, OUTPUT_COLUMNS};
