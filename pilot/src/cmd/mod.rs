//! One module per subcommand.
pub mod alloc;
mod alloc_charts;
mod alloc_device;
mod alloc_record;
mod alloc_stats;
pub mod backends;
pub mod backtest;
pub mod book;
pub mod calibrate;
pub mod certify;
mod open_backend;
pub mod paths;
pub mod pilot;
pub mod price;
pub mod surface;
