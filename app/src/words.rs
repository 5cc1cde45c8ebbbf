//! How messages name settings. The library's messages name a setting (`max_iterations`,
//! `paths`, `out`) through [`setting`]; a door that has other names for them (the command line's
//! `--max-iterations` flags and `<CHAIN>` arguments) says so once at start-up with
//! [`use_flags`]. The Python package and the C ABI keep the setting names, which are their
//! keyword arguments and fields.

use std::sync::atomic::{AtomicBool, Ordering};

static FLAGS: AtomicBool = AtomicBool::new(false);

/// Settings that are positional arguments on the command line, with their spelling there.
const POSITIONALS: [(&str, &str); 2] = [("chain", "<CHAIN>"), ("baseline", "<BASELINE>")];

/// From now on, [`setting`] gives command-line spellings (`--max-iterations`, `<CHAIN>`).
/// Called by the `tenor` command before anything else.
pub fn use_flags() {
    FLAGS.store(true, Ordering::Relaxed);
}

/// The name of setting `name` (snake_case) as the door in use spells it: `name` itself, or
/// with [`use_flags`] its flag (`--` and dashes for underscores) or positional argument.
pub fn setting(name: &str) -> String {
    if !FLAGS.load(Ordering::Relaxed) {
        return name.to_owned();
    }
    match POSITIONALS.iter().find(|(n, _)| *n == name) {
        Some((_, shown)) => (*shown).to_owned(),
        None => format!("--{}", name.replace('_', "-")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn settings_become_flags_only_when_asked() {
        // One test owns the process-wide switch (tests of this crate run in one process).
        assert_eq!(super::setting("max_iterations"), "max_iterations");
        super::use_flags();
        assert_eq!(super::setting("max_iterations"), "--max-iterations");
        assert_eq!(super::setting("chain"), "<CHAIN>");
    }
}
