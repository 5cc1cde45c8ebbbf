//! The committed header `include/tenor.h` equals a fresh cbindgen generation from the source
//! (so the C ABI and its header cannot drift). `TENOR_BLESS=1` rewrites it instead.

use std::path::Path;

#[test]
fn committed_header_matches_a_fresh_generation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap_or_else(|e| panic!("cbindgen.toml: {e}"));
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen could not generate the header: {e}"));
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).unwrap_or_else(|e| panic!("generated header is not UTF-8: {e}"));
    let path = dir.join("include/tenor.h");
    if std::env::var_os("TENOR_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    assert!(
        committed == fresh,
        "{} differs from a fresh cbindgen generation; regenerate with `TENOR_BLESS=1 cargo test -p tenor-c --test header`",
        path.display()
    );
}
