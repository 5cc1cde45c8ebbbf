//! Closed-form pricing: the standard normal distribution, Black-Scholes-Merton with dividend
//! yield and its Greeks, Reiner-Rubinstein barriers, geometric-average Asians, and Greeks by
//! bump-and-revalue for any pricing function.

pub mod asian;
pub mod barrier;
pub mod bsm;
pub mod bump;
pub mod normal;

pub use barrier::{barrier_greeks, barrier_price};
pub use bsm::{black_scholes, black_scholes_price};
pub use bump::{greeks_by_bump, BumpDomain, BumpParam, BumpSteps, Bumpable, Scheme, Stencil, SHRINK_FLOOR};
