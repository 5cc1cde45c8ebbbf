//! One module per subcommand.
pub mod backends;
pub mod calibrate;
pub mod surface;
