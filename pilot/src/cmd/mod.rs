//! One module per subcommand.
pub mod alloc;
mod alloc_charts;
mod alloc_record;
pub mod backends;
pub mod backtest;
pub mod book;
pub mod calibrate;
pub mod certify;
pub mod paths;
pub mod pilot;
pub mod price;
pub mod surface;
