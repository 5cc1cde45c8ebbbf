//! One module per subcommand.
pub mod backends;
pub mod backtest;
pub mod pilot;
