//! One module per subcommand.
pub mod backends;
pub mod book;
pub mod price;
