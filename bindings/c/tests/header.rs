//! The committed header `include/tenor.h` equals a fresh cbindgen generation from the source
//! and the code enums generated from the product and engine tables (so the C ABI, its header
//! and the tables cannot drift). `TENOR_BLESS=1` rewrites it instead.

use std::path::Path;

use tenor_pricing::engines::{ENGINES, NOT_PRICED_C_CODE};
use tenor_pricing::products::Kind;

/// `TenorKind` and `TenorMethod` as C enums, from the tables: a kind per row of the product
/// table with a C code, a method per engine row (and `NOT_PRICED`), in the order of their codes.
fn code_enums() -> String {
    let mut kinds: Vec<(u32, String, String)> = Kind::ALL
        .iter()
        .filter_map(|k| {
            let fields = if k.columns().is_empty() {
                String::new()
            } else {
                format!(" Fields: `{}`.", k.columns().join("`, `"))
            };
            k.c_code().map(|c| (c, k.as_str().to_uppercase(), format!("{}{fields}", k.summary())))
        })
        .collect();
    kinds.sort();
    let mut methods: Vec<(u32, String, String)> =
        ENGINES.iter().map(|e| (e.c_code, e.method.to_uppercase(), e.summary.to_owned())).collect();
    methods.push((NOT_PRICED_C_CODE, "NOT_PRICED".into(), "Not priced (see the row's status).".into()));
    methods.sort();
    let block = |doc: &str, name: &str, prefix: &str, rows: &[(u32, String, String)]| {
        let mut s = format!("// {doc}\ntypedef enum {name} {{\n");
        for (code, id, summary) in rows {
            s += &format!("  // {summary}\n  {prefix}_{id} = {code},\n");
        }
        s + &format!("}} {name};\n")
    };
    let blocks = [
        block(
            "Kinds of trade (`TenorTrade::kind`): the `kind` column of docs/portfolio-csv.md, from the product table.",
            "TenorKind",
            "TENOR_KIND",
            &kinds,
        ),
        block(
            "Method codes of `TenorPriced::method`: the engine that priced the row, from the engine table.",
            "TenorMethod",
            "TENOR_METHOD",
            &methods,
        ),
    ]
    .join("\n");
    format!("\n{}", blocks.trim_end())
}

#[test]
fn committed_header_matches_a_fresh_generation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config =
        cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap_or_else(|e| panic!("cbindgen.toml: {e}"));
    config.after_includes = Some(code_enums());
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
