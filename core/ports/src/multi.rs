//! Several devices as one composition: [`Devices`] holds one [`Compute`] per device (each with
//! its own allocator, pool and streams), splits independent work over them by estimated cost
//! ([`shard_by_cost`]) and gathers the results back in input order ([`Sharding::gather`]).
//!
//! Nothing here moves data between devices: each shard is priced on its own device and its
//! results (a few numbers per item) come back to the host, where they are put back in input
//! order. Bitwise identity on 1, 2 or N devices therefore rests on the work itself: each item's
//! result must depend only on the item and the configuration (Tenor's Monte Carlo seeds every
//! trade and path block by Philox counters, never by position; ADR 0003, ADR 0020).
//!
//! The split is the longest-processing-time-first rule (Graham 1969, "Bounds on multiprocessing
//! timing anomalies"): items in decreasing cost, each to the device with the least load so far;
//! its makespan is within 4/3 of the optimum, and on a book of thousands of items with no item
//! a large share of the total it is within a fraction of a percent of perfect balance.

use std::sync::Arc;

use crate::{Compute, ComputeError};

/// Whether device `i` can read and write device `j`'s memory directly, as the driver reports it
/// (`cuDeviceCanAccessPeer` on CUDA). `None`: not applicable or not known (the CPU and
/// simulated backends, whose "devices" share host memory; a backend without the query).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PeerAccess {
    n: usize,
    matrix: Vec<Option<bool>>,
}

impl PeerAccess {
    /// `n` devices, no pair known.
    #[must_use]
    pub fn unknown(n: usize) -> Self {
        Self { n, matrix: vec![None; n * n] }
    }
    /// `n` devices with `query(i, j)` for each ordered pair `i != j` (the diagonal is `None`).
    pub fn from_fn(n: usize, mut query: impl FnMut(usize, usize) -> Option<bool>) -> Self {
        let mut m = Self::unknown(n);
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    m.matrix[i * n + j] = query(i, j);
                }
            }
        }
        m
    }
    /// Number of devices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.n
    }
    /// Whether there are no devices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// Whether device `i` can access device `j` (`None` outside the matrix, on the diagonal or
    /// where unknown).
    #[must_use]
    pub fn get(&self, i: usize, j: usize) -> Option<bool> {
        if i >= self.n || j >= self.n {
            return None;
        }
        self.matrix[i * self.n + j]
    }
    /// One line per device pair for reports: `0 -> 1: yes`, `no` or `n/a`; empty for one device.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for i in 0..self.n {
            for j in 0..self.n {
                if i != j {
                    let v = match self.get(i, j) {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "n/a",
                    };
                    out.push(format!("{i} -> {j}: {v}"));
                }
            }
        }
        out
    }
}

/// How items were split over devices: `shards[d]` holds the indices of the items of device `d`
/// in increasing (input) order; `loads[d]` is the sum of their estimated costs.
#[derive(Debug, Clone, PartialEq)]
pub struct Sharding {
    /// Item indices per device, each in input order.
    pub shards: Vec<Vec<usize>>,
    /// Estimated cost per device (the unit of the costs given).
    pub loads: Vec<f64>,
    /// Number of items split.
    pub items: usize,
}

impl Sharding {
    /// Largest load over the mean load, minus one (0 is perfect balance; 0.1 is 10 % over).
    /// 0 when there is no cost at all.
    #[must_use]
    pub fn imbalance(&self) -> f64 {
        imbalance(&self.loads)
    }
    /// Puts per-shard results (`parts[d]` in the order of `shards[d]`) back in input order.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] when a part's length differs from its shard's.
    pub fn gather<R>(&self, parts: Vec<Vec<R>>) -> Result<Vec<R>, ComputeError> {
        if parts.len() != self.shards.len() {
            return Err(ComputeError::InvalidArgument(format!(
                "gather: {} result parts for {} shards",
                parts.len(),
                self.shards.len()
            )));
        }
        let mut out: Vec<Option<R>> = (0..self.items).map(|_| None).collect();
        for (d, (shard, part)) in self.shards.iter().zip(parts).enumerate() {
            if shard.len() != part.len() {
                return Err(ComputeError::InvalidArgument(format!(
                    "gather: device {d} returned {} results for {} items",
                    part.len(),
                    shard.len()
                )));
            }
            for (i, r) in shard.iter().zip(part) {
                out[*i] = Some(r);
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, r)| r.ok_or_else(|| ComputeError::InvalidArgument(format!("gather: item {i} has no result"))))
            .collect()
    }
}

/// Largest of `loads` over their mean, minus one; 0 for no load.
#[must_use]
pub fn imbalance(loads: &[f64]) -> f64 {
    let total: f64 = loads.iter().sum();
    if loads.is_empty() || total <= 0.0 {
        return 0.0;
    }
    let mean = total / loads.len() as f64;
    loads.iter().copied().fold(0.0, f64::max) / mean - 1.0
}

/// Splits items of estimated `costs` (any non-negative unit; NaN counts as 0) over `devices`
/// devices, longest processing time first: items by decreasing cost (ties by index), each to
/// the least-loaded device (ties to the lowest device). Deterministic: the same costs always
/// give the same split. `devices` 0 is taken as 1.
#[must_use]
pub fn shard_by_cost(costs: &[f64], devices: usize) -> Sharding {
    let n = devices.max(1);
    let cost = |i: usize| if costs[i].is_finite() && costs[i] > 0.0 { costs[i] } else { 0.0 };
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| cost(b).total_cmp(&cost(a)).then(a.cmp(&b)));
    let mut shards: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut loads = vec![0.0; n];
    for i in order {
        let mut best = 0;
        for d in 1..n {
            // Fewer items breaks ties between equal loads, so zero-cost items spread out too.
            if loads[d] < loads[best] || (loads[d] == loads[best] && shards[d].len() < shards[best].len()) {
                best = d;
            }
        }
        shards[best].push(i);
        loads[best] += cost(i);
    }
    for s in &mut shards {
        s.sort_unstable();
    }
    Sharding { shards, loads, items: costs.len() }
}

/// One [`Compute`] per device, for work sharded over all of them. Each device keeps its own
/// allocator (pool) and streams; the composition adds only the split and the gather.
#[derive(Debug, Clone)]
pub struct Devices {
    devices: Vec<Arc<dyn Compute>>,
    labels: Vec<String>,
    peers: PeerAccess,
}

impl Devices {
    /// The devices `devices`, labelled `label[i]` in reports (`cuda:0`, `sim:3`), peer access
    /// unknown.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] for an empty list or a label count that differs.
    pub fn new(devices: Vec<Arc<dyn Compute>>, labels: Vec<String>) -> Result<Self, ComputeError> {
        if devices.is_empty() {
            return Err(ComputeError::InvalidArgument("a device set needs at least one device".into()));
        }
        if labels.len() != devices.len() {
            return Err(ComputeError::InvalidArgument(format!(
                "{} labels for {} devices",
                labels.len(),
                devices.len()
            )));
        }
        let peers = PeerAccess::unknown(devices.len());
        Ok(Self { devices, labels, peers })
    }
    /// One device, labelled with its backend name.
    #[must_use]
    pub fn single(device: Arc<dyn Compute>) -> Self {
        let label = device.info().backend.clone();
        Self { devices: vec![device], labels: vec![label], peers: PeerAccess::unknown(1) }
    }
    /// The same set with the peer-access matrix `peers` (as checked by the adapter).
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] when the matrix is not for this many devices.
    pub fn with_peers(mut self, peers: PeerAccess) -> Result<Self, ComputeError> {
        if peers.len() != self.devices.len() {
            return Err(ComputeError::InvalidArgument(format!(
                "peer matrix for {} devices given to a set of {}",
                peers.len(),
                self.devices.len()
            )));
        }
        self.peers = peers;
        Ok(self)
    }
    /// The first `n` devices (at least one), for scaling tables over 1..N devices.
    #[must_use]
    pub fn prefix(&self, n: usize) -> Self {
        let n = n.clamp(1, self.devices.len());
        let peers = PeerAccess::from_fn(n, |i, j| self.peers.get(i, j));
        Self { devices: self.devices[..n].to_vec(), labels: self.labels[..n].to_vec(), peers }
    }
    /// Number of devices (at least one).
    #[must_use]
    pub fn len(&self) -> usize {
        self.devices.len()
    }
    /// Always false: a set has at least one device.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }
    /// The devices.
    #[must_use]
    pub fn devices(&self) -> &[Arc<dyn Compute>] {
        &self.devices
    }
    /// The first device (the one single-device commands use).
    #[must_use]
    pub fn first(&self) -> &Arc<dyn Compute> {
        &self.devices[0]
    }
    /// Report labels, one per device.
    #[must_use]
    pub fn labels(&self) -> &[String] {
        &self.labels
    }
    /// The peer-access matrix.
    #[must_use]
    pub fn peers(&self) -> &PeerAccess {
        &self.peers
    }
    /// Splits items of estimated `costs` over these devices ([`shard_by_cost`]).
    #[must_use]
    pub fn shard(&self, costs: &[f64]) -> Sharding {
        shard_by_cost(costs, self.devices.len())
    }
    /// Runs `work(d, device, shard)` for every non-empty shard `d` of `sharding`, one host
    /// thread per device, all at once, and returns each device's output in device order (an
    /// empty shard's is `R::default()`, without a thread). A worker that panics gives `Err`
    /// naming the device for its entry only; the other devices' outputs are kept.
    ///
    /// # Errors
    /// [`ComputeError::InvalidArgument`] when `sharding` is for another device count.
    pub fn run_shards<R, W>(&self, sharding: &Sharding, work: W) -> Result<Vec<Result<R, ComputeError>>, ComputeError>
    where
        R: Send + Default,
        W: Fn(usize, &dyn Compute, &[usize]) -> R + Sync,
    {
        if sharding.shards.len() != self.devices.len() {
            return Err(ComputeError::InvalidArgument(format!(
                "a sharding for {} devices run on {}",
                sharding.shards.len(),
                self.devices.len()
            )));
        }
        let work = &work;
        Ok(std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .devices
                .iter()
                .zip(&sharding.shards)
                .enumerate()
                .map(|(d, (dev, shard))| {
                    (!shard.is_empty()).then(|| scope.spawn(move || work(d, dev.as_ref(), shard.as_slice())))
                })
                .collect();
            handles
                .into_iter()
                .enumerate()
                .map(|(d, h)| match h {
                    None => Ok(R::default()),
                    Some(h) => h.join().map_err(|_| {
                        ComputeError::InvalidArgument(format!("the worker of device {} panicked", self.labels[d]))
                    }),
                })
                .collect()
        }))
    }
    /// Splits items of `costs` over the devices, runs `work(device, shard)` per device
    /// concurrently (it returns one result per index of `shard`, in its order) and gathers the
    /// results in input order.
    ///
    /// # Errors
    /// As [`Devices::run_shards`] and [`Sharding::gather`]; the first worker that panicked.
    pub fn map_sharded<R, W>(&self, costs: &[f64], work: W) -> Result<(Vec<R>, Sharding), ComputeError>
    where
        R: Send,
        W: Fn(&dyn Compute, &[usize]) -> Vec<R> + Sync,
    {
        let sharding = self.shard(costs);
        let parts = self.run_shards(&sharding, |_, dev, shard| work(dev, shard))?;
        let parts: Vec<Vec<R>> = parts.into_iter().collect::<Result<_, _>>()?;
        let out = sharding.gather(parts)?;
        Ok((out, sharding))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lpt_balances_hand_case() {
        // Costs 5,4,3,3,3 on two devices, by hand: 5->d0, 4->d1, 3->d1 (7), 3->d0 (8),
        // 3->d1 (10): loads 8 and 10 (the optimum is 9 and 9; LPT is within 4/3 of it).
        let s = shard_by_cost(&[5.0, 4.0, 3.0, 3.0, 3.0], 2);
        assert_eq!(s.shards, vec![vec![0, 3], vec![1, 2, 4]]);
        assert_eq!(s.loads, vec![8.0, 10.0]);
        assert!((s.imbalance() - (10.0 / 9.0 - 1.0)).abs() < 1e-12);
    }

    #[test]
    fn gather_restores_input_order() {
        let s = shard_by_cost(&[1.0, 7.0, 2.0, 6.0, 3.0], 3);
        let parts: Vec<Vec<usize>> = s.shards.iter().map(|sh| sh.iter().map(|i| i * 10).collect()).collect();
        assert_eq!(s.gather(parts).expect("valid"), vec![0, 10, 20, 30, 40]);
    }

    #[test]
    fn gather_refuses_a_short_part() {
        let s = shard_by_cost(&[1.0, 1.0], 2);
        let err = s.gather(vec![vec![1], vec![]]).expect_err("refused");
        assert!(err.to_string().contains("device 1 returned 0 results for 1 items"), "{err}");
    }

    #[test]
    fn zero_costs_spread_over_devices() {
        let s = shard_by_cost(&[0.0; 6], 3);
        assert!(s.shards.iter().all(|sh| sh.len() == 2), "{s:?}");
        assert_eq!(s.imbalance(), 0.0);
    }

    #[test]
    fn peer_lines_name_each_pair() {
        let p = PeerAccess::from_fn(2, |i, _| Some(i == 0));
        assert_eq!(p.lines(), vec!["0 -> 1: yes".to_owned(), "1 -> 0: no".to_owned()]);
        assert_eq!(p.get(0, 0), None);
    }
}
