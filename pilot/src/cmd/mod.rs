//! One module per subcommand.
pub mod alloc;
mod alloc_charts;
pub mod backends;
