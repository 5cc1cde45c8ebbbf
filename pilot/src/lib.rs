//! The `tenor` package: the command line (src/main.rs) and the pilot harness, exposed as a
//! library so tests and other tools can drive the measurements.

pub mod pilot;
