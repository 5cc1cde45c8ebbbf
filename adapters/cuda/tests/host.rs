//! What the CUDA adapter does without a GPU (CI): typed unavailability instead of cudarc's
//! panic, and its host-side logic (policies, cache keys, IPC records).

use tenor_cuda::alloc::{IpcPointer, ReusePolicy, Sharing};
use tenor_cuda::nvrtc::ImageCache;
use tenor_ports::ComputeError;

#[test]
fn opening_cuda_is_a_value_never_a_panic() {
    match tenor_cuda::cuda() {
        // On a GPU machine the device opens; its description says so.
        Ok(dev) => assert_eq!(tenor_ports::Compute::info(&dev).backend, "cuda"),
        Err(ComputeError::Unavailable { backend, reason }) => {
            assert_eq!(backend, "cuda");
            assert!(
                ["driver", "cuInit", "device", "NVRTC", "cuBLAS"].iter().any(|w| reason.contains(w)),
                "the reason names the missing piece: {reason}"
            );
        }
        Err(e) => panic!("expected Unavailable, got {e:?}"),
    }
}

#[test]
fn sharing_policies_set_the_release_threshold() {
    assert_eq!(Sharing::Exclusive.release_threshold(), u64::MAX);
    assert_eq!(Sharing::Unknown.release_threshold(), 0);
    assert_eq!(Sharing::Shared { working_set: 3 << 30 }.release_threshold(), 3 << 30);
    assert_eq!(Sharing::parse("shared:1048576").ok(), Some(Sharing::Shared { working_set: 1 << 20 }));
    assert_eq!(Sharing::parse("exclusive").ok(), Some(Sharing::Exclusive));
    let e = Sharing::parse("shared:lots").expect_err("not a byte count");
    assert!(e.to_string().contains("shared:lots"), "{e}");
}

#[test]
fn deterministic_mode_keeps_only_event_dependencies() {
    let d = ReusePolicy::deterministic();
    assert!(d.follow_event_dependencies && !d.allow_opportunistic && !d.allow_internal_dependencies);
    let all = ReusePolicy::driver_default();
    assert!(all.follow_event_dependencies && all.allow_opportunistic && all.allow_internal_dependencies);
}

#[test]
fn ipc_records_round_trip_through_hex() {
    let mut raw = [0u8; 64];
    for (i, b) in raw.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37);
    }
    let rec = IpcPointer(raw);
    assert_eq!(IpcPointer::from_hex(&rec.to_hex()).ok(), Some(rec));
    assert!(IpcPointer::from_hex("abc").is_err());
}

#[test]
fn cache_keys_name_source_device_and_compiler() {
    let k = ImageCache::key("k", "src", (9, 0), (13, 0));
    assert!(k.starts_with("k-sm90-nvrtc13.0-") && k.ends_with(".cubin"), "{k}");
    assert_ne!(k, ImageCache::key("k", "src2", (9, 0), (13, 0)));
    assert_ne!(k, ImageCache::key("k", "src", (8, 0), (13, 0)));
    assert_ne!(k, ImageCache::key("k", "src", (9, 0), (13, 1)));
}
