//! The allocation toolkit's workflows for every door: traces of Tenor's own pricing kernels
//! ([`pricing`]), trace files ([`trace`]), profile/replay/advise ([`workflows`]), the timed
//! replay on a backend ([`device`]), recording any program ([`record`]), the statistics of
//! `libtenor_allocator.so` ([`stats`]) and the charts ([`charts`]).

pub mod charts;
pub mod device;
pub mod pricing;
#[cfg(unix)]
pub mod record;
pub mod stats;
pub mod trace;
pub mod workflows;
