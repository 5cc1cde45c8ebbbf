//! Replay of the synthetic desk trace against every strategy on the simulated device.

use tenor_alloc::desk::{desk_trace, DeskConfig};
use tenor_alloc::replay::{replay, Kind, ReplayOptions};

#[test]
fn desk_replay_table() {
    let trace = desk_trace(&DeskConfig::default());
    let opts = ReplayOptions::default();
    let peak = trace.peak_live_bytes();
    for kind in Kind::ALL {
        let r = replay(&trace, kind, &opts, &mut |_| {}).expect("replay");
        println!(
            "{:8} {:28} reserved {:>10} used {:>10} ratio {:.3} frag {:.3}/{:.3} waits {} ns/op {:.0} fail {} left {} hazards {}",
            kind.name(), r.name, r.peak_reserved, r.peak_used, r.overhead(), r.fragmentation_mean, r.fragmentation_max,
            r.inserted_waits, r.ns_per_op, r.failures, r.left_reserved, r.hazards.len()
        );
        assert_eq!(r.peak_used, peak);
        assert!(r.hazards.is_empty(), "{kind:?}: {:?}", r.hazards.first());
        assert_eq!(r.left_reserved, 0, "{kind:?} returns every byte");
    }
}
