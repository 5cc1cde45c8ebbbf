//! # tenor-backtest: strategies written once, run on real data and on any backend
//!
//! An event-driven engine (the design of backtrader and LEAN, without their look-ahead traps):
//! a [`Strategy`] sees each bar of every symbol in time order and only history up to that bar;
//! orders placed on a bar are filled no earlier than the next bar (market orders at its open,
//! limit and stop orders when its range crosses their price), with configurable commission and
//! slippage; the portfolio keeps cash, positions, dividends and the equity curve; [`metrics`]
//! computes return, volatility, Sharpe, Sortino, drawdown, turnover and hit rate.
//!
//! Option strategies price through `tenor-pricing` on whatever `Compute` backend they are given
//! (see [`strategies::straddle`]), so the same code runs on cpu, sycl or cuda.

pub mod batch;
pub mod data;
pub mod engine;
pub mod feed;
pub mod metrics;
pub mod order;
pub mod strategies;
pub mod sweep;

pub use data::{Bar, DataError, Series};
pub use engine::{CashPolicy, Context, Engine, EngineConfig, Fill, RunResult, Strategy};
pub use feed::Feed;
pub use order::{CostModel, Order, OrderKind};

#[doc = include_str!("../../docs/backtest.md")]
pub mod guide {}
