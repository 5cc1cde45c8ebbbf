//! Every built-in kernel has a `cuda.cu`, and NVRTC compiles it (prelude included) for the
//! H200's architecture, sm_90. Needs only NVRTC, no GPU: CI runs it through `scripts/test`,
//! which installs NVRTC from PyPI (`scripts/install-nvrtc`) and sets `LD_LIBRARY_PATH`.
//! Without NVRTC the test fails, naming what is missing (it is `#[ignore]`d so that a plain
//! `cargo test` on a machine without NVRTC does not count it as passed or failed).

#[test]
#[ignore = "needs libnvrtc.so.13: run by scripts/test after scripts/install-nvrtc (LD_LIBRARY_PATH)"]
fn nvrtc_compiles_every_kernel() {
    tenor_cuda::probe::probe_nvrtc().expect("NVRTC must be loadable for this check");
    let (major, minor) = tenor_cuda::nvrtc::version().expect("nvrtcVersion");
    let reg = tenor_kernels::registry().expect("manifests parse");
    let mut failures = Vec::new();
    for def in reg {
        if !def.sources.contains_key("cuda") {
            failures.push(format!("{}: kernels/{}/cuda.cu is missing", def.name, def.name));
            continue;
        }
        match tenor_cuda::nvrtc::compile_kernel(def, (9, 0)) {
            Ok(image) if image.len() > 64 => {}
            Ok(image) => failures.push(format!("{}: NVRTC returned a {}-byte image", def.name, image.len())),
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "NVRTC {major}.{minor}, sm_90:\n{}", failures.join("\n\n"));
    println!("NVRTC {major}.{minor} compiled {} kernels for sm_90", reg.len());
}

#[test]
#[ignore = "needs libnvrtc.so.13: run by scripts/test after scripts/install-nvrtc (LD_LIBRARY_PATH)"]
fn nvrtc_reports_a_broken_kernel_with_its_log() {
    let def = tenor_ports::KernelDef::from_toml(
        "name = \"broken\"\n[launch]\nitems = \"n\"\nblock = 256\n[[args]]\nname = \"n\"\ntype = \"u64\"\n",
        "test",
    )
    .expect("manifest")
    .with_source("cuda", "extern \"C\" __global__ void broken(u64 n) { undefined_symbol(n); }");
    let err = tenor_cuda::nvrtc::compile_kernel(&def, (9, 0)).expect_err("must not compile");
    let text = err.to_string();
    assert!(text.contains("broken") && text.contains("undefined_symbol"), "{text}");
}

#[test]
#[ignore = "needs libnvrtc.so.13: run by scripts/test after scripts/install-nvrtc (LD_LIBRARY_PATH)"]
fn image_cache_reuses_and_keys_by_source() {
    let dir = std::env::temp_dir().join(format!("tenor-cuda-cache-{}", std::process::id()));
    let cache = tenor_cuda::nvrtc::ImageCache::at(Some(dir.clone()));
    let def = tenor_kernels::get("philox_bits").expect("philox_bits");
    let a = cache.get_or_compile(def, (9, 0)).expect("compile");
    let files: Vec<_> = std::fs::read_dir(&dir).expect("cache dir").flatten().collect();
    assert_eq!(files.len(), 1, "one cached image");
    let b = cache.get_or_compile(def, (9, 0)).expect("cached");
    assert_eq!(a, b);
    let changed = def.clone().with_source("cuda", format!("{}\n// changed\n", def.sources["cuda"]));
    cache.get_or_compile(&changed, (9, 0)).expect("compile changed");
    cache.get_or_compile(def, (8, 0)).expect("compile for sm_80");
    assert_eq!(std::fs::read_dir(&dir).expect("cache dir").count(), 3, "source and architecture are in the key");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes every built-in kernel's NVRTC image (the sm_90 CUBIN that [`tenor_cuda::nvrtc::compile_kernel`]
/// returns) to `$TENOR_NVRTC_DUMP/<name>.cubin`, so two trees can be compared byte for byte
/// (ADR 0015: the generated CUDA entry points must give the hand-written ones' images). Fails
/// when the variable is unset, rather than passing without having compared anything.
#[test]
#[ignore = "needs libnvrtc.so.13 and TENOR_NVRTC_DUMP=<folder>: a tool for comparing images"]
fn nvrtc_dump_images() {
    let dir = std::env::var_os("TENOR_NVRTC_DUMP").expect("TENOR_NVRTC_DUMP must name the output folder");
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create the dump folder");
    let reg = tenor_kernels::registry().expect("manifests parse");
    for def in reg {
        let image = tenor_cuda::nvrtc::compile_kernel(def, (9, 0)).unwrap_or_else(|e| panic!("{}: {e}", def.name));
        std::fs::write(dir.join(format!("{}.cubin", def.name)), &image).expect("write the image");
        std::fs::write(dir.join(format!("{}.cu", def.name)), &def.sources["cuda"]).expect("write the source");
    }
    println!("{} images in {}", reg.len(), dir.display());
}
