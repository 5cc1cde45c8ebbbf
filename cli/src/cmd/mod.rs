//! One module per subcommand: clap arguments, and a `run` that builds the library's request,
//! makes one call of `tenor_app` and prints.
pub mod alloc;
pub mod backends;
pub mod backtest;
pub mod basket;
pub mod book;
pub mod calibrate;
pub mod certify;
pub mod pilot;
pub mod price;
pub mod serve;
pub mod surface;
