//! Closed-form prices.
pub mod asian;
