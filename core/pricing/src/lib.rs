//! # tenor-pricing: backend-neutral pricing
//!
//! Closed forms are plain functions; Monte Carlo engines are generic over
//! `C: tenor_ports::Compute + ?Sized`, so the same code runs monomorphised on the CPU backend in
//! tests and through `Arc<dyn Compute>` on any backend in production.
pub mod american;
pub mod analytic;
pub mod basket;
pub mod engines;
pub mod error;
pub mod heston;
pub mod mc;
pub mod portfolio;
pub mod products;
pub mod types;
