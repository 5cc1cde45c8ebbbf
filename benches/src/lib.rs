//! Shared helpers for the benchmarks (benches/benches/*.rs).
