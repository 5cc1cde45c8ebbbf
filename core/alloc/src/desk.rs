//! A synthetic pricing-desk allocation trace.
//!
//! The pattern the seed notes warn about: long-lived allocations (calibrated curves, trade
//! portfolios) made between bursts of short-lived per-job scratch (Monte Carlo paths, payoffs,
//! partial sums, small parameter blocks), with several jobs in flight on several streams
//! (one host thread per stream), results freed on an aggregation stream, and curves and
//! portfolios replaced now and then while jobs run. Seeded (SplitMix64), so the same
//! [`DeskConfig`] always gives the same trace.

use crate::trace::{Trace, TraceEvent, TraceOp};

/// Shape of the synthetic desk.
#[derive(Debug, Clone, Copy)]
pub struct DeskConfig {
    /// Generator seed.
    pub seed: u64,
    /// Streams (and host threads); stream 0 also aggregates results.
    pub streams: usize,
    /// Pricing jobs.
    pub jobs: usize,
    /// Jobs in flight at once.
    pub in_flight: usize,
    /// Curves held for the whole day.
    pub curves: usize,
    /// Portfolios held for the whole day.
    pub portfolios: usize,
    /// A curve (and every fourth time a portfolio) is replaced after this many jobs.
    pub refresh_every: usize,
    /// Monte Carlo paths of a standard job (scratch sizes scale with it).
    pub paths: usize,
}

impl Default for DeskConfig {
    fn default() -> Self {
        Self {
            seed: 7,
            streams: 4,
            jobs: 400,
            in_flight: 3,
            curves: 12,
            portfolios: 4,
            refresh_every: 10,
            paths: 1 << 16,
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One scheduled step of a job.
#[derive(Debug, Clone, Copy)]
enum Step {
    Alloc { slot: usize, bytes: usize },
    Free { slot: usize, on_stream: Option<usize> },
}

/// The steps of a job of `kind` (0: European, 1: path-dependent, 2: Greeks by bumping).
fn job_steps(kind: usize, paths: usize, rng: &mut Rng) -> Vec<Step> {
    let f = 8;
    let partials = 2 * paths.div_ceil(4096) * f;
    let params = 64 + 64 * rng.below(8);
    let mut v = vec![Step::Alloc { slot: 0, bytes: params }];
    match kind {
        0 => {
            v.push(Step::Alloc { slot: 1, bytes: paths * f });
            v.push(Step::Alloc { slot: 2, bytes: paths * f });
            v.push(Step::Free { slot: 1, on_stream: None });
            v.push(Step::Alloc { slot: 3, bytes: partials });
            v.push(Step::Free { slot: 2, on_stream: None });
        }
        1 => {
            v.push(Step::Alloc { slot: 1, bytes: paths * 16 * f });
            v.push(Step::Alloc { slot: 2, bytes: paths * f });
            v.push(Step::Free { slot: 1, on_stream: None });
            v.push(Step::Alloc { slot: 3, bytes: partials });
            v.push(Step::Free { slot: 2, on_stream: None });
        }
        _ => {
            for b in 0..4 {
                v.push(Step::Alloc { slot: 4 + b, bytes: 2 * paths * f });
            }
            v.push(Step::Alloc { slot: 3, bytes: 4 * partials });
            for b in 0..4 {
                v.push(Step::Free { slot: 4 + b, on_stream: None });
            }
        }
    }
    v.push(Step::Free { slot: 0, on_stream: None });
    v.push(Step::Free { slot: 3, on_stream: Some(0) }); // results reduced on the aggregation stream
    v
}

struct Job {
    id: u64,
    stream: usize,
    steps: Vec<Step>,
    next: usize,
    blocks: [u64; 8],
    bytes: [usize; 8],
}

/// Generates the desk's trace. Stream ids are `1..=streams`, threads `0..streams`, jobs
/// `1..=jobs`; persistent data belongs to job 0 on stream 1.
pub fn desk_trace(cfg: &DeskConfig) -> Trace {
    let mut rng = Rng(cfg.seed ^ 0xD1B5_4A32_D192_ED03);
    let streams = cfg.streams.max(1);
    let mut ev: Vec<TraceEvent> = Vec::new();
    let mut next_block = 1u64;
    let push = |ev: &mut Vec<TraceEvent>, op: TraceOp, bytes: usize, stream: usize, job: u64, block: u64| {
        let time_ns = ev.len() as u64 * 1000;
        ev.push(TraceEvent { time_ns, op, bytes, stream: stream as u64 + 1, job, block, thread: stream as u32 });
    };
    let mut alloc = |ev: &mut Vec<TraceEvent>, bytes: usize, stream: usize, job: u64| -> u64 {
        let b = next_block;
        next_block += 1;
        push(ev, TraceOp::Alloc, bytes, stream, job, b);
        b
    };
    let curve_bytes = |rng: &mut Rng| 64 * 1024 + 256 * rng.below(64);
    let portfolio_bytes = |rng: &mut Rng| (4 << 20) + (64 << 10) * rng.below(16);
    let mut persistent: Vec<(u64, usize, bool)> = Vec::new();
    for _ in 0..cfg.curves {
        let b = curve_bytes(&mut rng);
        persistent.push((alloc(&mut ev, b, 0, 0), b, false));
    }
    for _ in 0..cfg.portfolios {
        let b = portfolio_bytes(&mut rng);
        persistent.push((alloc(&mut ev, b, 0, 0), b, true));
    }
    let mut active: Vec<Job> = Vec::new();
    let mut started = 0usize;
    let mut refreshes = 0usize;
    while started < cfg.jobs || !active.is_empty() {
        while active.len() < cfg.in_flight.max(1) && started < cfg.jobs {
            let kind = rng.below(3);
            active.push(Job {
                id: started as u64 + 1,
                stream: started % streams,
                steps: job_steps(kind, cfg.paths, &mut rng),
                next: 0,
                blocks: [0; 8],
                bytes: [0; 8],
            });
            started += 1;
            if cfg.refresh_every > 0 && started.is_multiple_of(cfg.refresh_every) && !persistent.is_empty() {
                // Replace a curve (every fourth time a portfolio) while jobs are in flight.
                refreshes += 1;
                let want_portfolio = refreshes.is_multiple_of(4);
                let candidates: Vec<usize> =
                    (0..persistent.len()).filter(|&i| persistent[i].2 == want_portfolio).collect();
                if !candidates.is_empty() {
                    let i = candidates[rng.below(candidates.len())];
                    let (old, old_bytes, is_p) = persistent[i];
                    let b = if is_p { portfolio_bytes(&mut rng) } else { curve_bytes(&mut rng) };
                    let nb = alloc(&mut ev, b, 0, 0);
                    push(&mut ev, TraceOp::Free, old_bytes, 0, 0, old);
                    persistent[i] = (nb, b, is_p);
                }
            }
        }
        let k = rng.below(active.len());
        let j = &mut active[k];
        let step = j.steps[j.next];
        j.next += 1;
        match step {
            Step::Alloc { slot, bytes } => {
                j.blocks[slot] = alloc(&mut ev, bytes, j.stream, j.id);
                j.bytes[slot] = bytes;
            }
            Step::Free { slot, on_stream } => {
                push(&mut ev, TraceOp::Free, j.bytes[slot], on_stream.unwrap_or(j.stream), j.id, j.blocks[slot]);
            }
        }
        if j.next == j.steps.len() {
            active.swap_remove(k);
        }
    }
    for (b, bytes, _) in persistent {
        push(&mut ev, TraceOp::Free, bytes, 0, 0, b);
    }
    Trace { events: ev }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desk_trace_is_balanced_seeded_and_multi_stream() {
        let cfg = DeskConfig { jobs: 60, ..DeskConfig::default() };
        let t = desk_trace(&cfg);
        assert_eq!(t, desk_trace(&cfg), "same seed, same trace");
        let text = t.to_text();
        let back = Trace::parse(&text, "desk").expect("round trip parses (every free matches a live alloc)");
        assert_eq!(back, t);
        let allocs = t.events.iter().filter(|e| e.op == TraceOp::Alloc).count();
        let frees = t.events.iter().filter(|e| e.op == TraceOp::Free).count();
        assert_eq!(allocs, frees, "everything allocated is freed");
        assert_eq!(t.streams().len(), cfg.streams);
        // The persistent data alone: 12 curves of at least 64 KiB and 4 portfolios of 4 MiB.
        assert!(t.peak_live_bytes() >= 12 * 65536 + 4 * (4 << 20));
    }
}
