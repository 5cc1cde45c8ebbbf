//! Unit tests of [`super`] (the batch members of each fp64 kernel), in a file of their own.

use super::*;
use crate::mc::plan::plan;
use crate::mc::{AsianOption, BarrierOption, FixingSchedule, McConfig, McProduct, Monitoring};
use crate::types::{BarrierType, OptionType, Vanilla};

fn vanilla() -> Vanilla {
    Vanilla {
        option: OptionType::Call,
        spot: 100.0,
        strike: 100.0,
        maturity: 1.0,
        rate: 0.05,
        dividend: 0.01,
        vol: 0.2,
    }
}

/// Every fp64 kind with a batch kernel becomes a batch member carrying the single launch's
/// parameters; fp32 launches (no batch kernel) do not. The batch kernels' manifests take
/// one array per single-kernel scalar after seed and pairs, then products, seed, pairs and
/// items.
#[test]
fn fp64_european_barrier_and_asian_jobs_are_batch_members() {
    let cfg = McConfig::default();
    let barrier = |monitoring| BarrierOption {
        vanilla: vanilla(),
        barrier_type: BarrierType::DownOut,
        barrier: 90.0,
        rebate: 1.0,
        monitoring,
    };
    let asian = AsianOption { vanilla: vanilla(), schedule: FixingSchedule::uniform(1.0, 12) };
    for (p, single, kernel, width) in [
        (McProduct::European(vanilla()), "mc_european", "mc_european_batch", 2),
        (McProduct::Barrier(barrier(Monitoring::Continuous)), "mc_barrier", "mc_barrier_batch", 2),
        (McProduct::Barrier(barrier(Monitoring::Discrete(12))), "mc_barrier", "mc_barrier_batch", 2),
        (McProduct::AsianGeometric(asian), "mc_asian", "mc_asian_batch", 5),
        (McProduct::AsianArithmetic(asian), "mc_asian", "mc_asian_batch", 5),
    ] {
        let job = plan(&p, &cfg).expect("plan");
        let launch = job.launch.as_ref().expect("a launch");
        assert_eq!(launch.kernel(), single);
        let m = Member::of(launch).unwrap_or_else(|| panic!("{} is not batched", launch.kernel()));
        assert_eq!((m.kernel, m.seed, m.pairs, m.width), (kernel, cfg.seed, cfg.pairs(), width));
        assert_eq!(m.launch, *launch);
        let one =
            tenor_kernels::registry().expect("registry").iter().find(|d| d.name == single).expect("single kernel");
        let many =
            tenor_kernels::registry().expect("registry").iter().find(|d| d.name == kernel).expect("batch kernel");
        let names = |d: &tenor_ports::KernelDef, skip: usize, keep: usize| -> Vec<String> {
            d.args.iter().skip(skip).take(keep).map(|a| a.name.clone()).collect()
        };
        let scalars = one.args.len() - 3;
        assert_eq!(names(one, 3, scalars), names(many, 1, scalars), "{kernel}: one array per scalar");
        assert_eq!(names(many, 1 + scalars, 4), ["products", "seed", "pairs", "items"], "{kernel}");
    }
    let f32_cfg = McConfig { precision: tenor_ports::Precision::F32, ..cfg };
    let job = plan(&McProduct::AsianArithmetic(asian), &f32_cfg).expect("plan");
    assert!(Member::of(job.launch.as_ref().expect("launch")).is_none());
}
