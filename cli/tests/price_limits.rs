//! Issue 17, "Load": `--paths` and `--steps` have upper bounds named in the error, and one
//! legal row whose Monte Carlo work would stall the book (100,000 fixings) is refused by
//! line while the other rows are priced and written.
use std::path::PathBuf;

mod common;

use common::{run, tenor};

const HEADER: &str = "id,kind,type,spot,strike,maturity,rate,dividend,vol,barrier,barrier_type,rebate,fixings";

fn file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("price_limits");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write portfolio");
    p
}

#[test]
fn paths_and_steps_above_their_bounds_are_refused_naming_the_flag() {
    let input = file("one.csv", &format!("{HEADER}\ne,european,call,100,100,1,0.05,0,0.2,,,,\n"));
    for (flag, value) in [("--paths", "1000000002"), ("--steps", "100001")] {
        let r = run(tenor().env_remove("TENOR_BACKEND").args(["price", "--portfolio"]).arg(&input).args([flag, value]));
        assert_eq!(r.code, 2, "{flag} {value}: {}", r.stderr);
        assert!(r.stderr.contains(flag) && r.stderr.contains(value), "{flag}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{flag}: priced anyway: {}", r.stdout);
    }
}

#[test]
fn a_row_with_too_much_work_is_named_and_the_others_are_written() {
    let text = format!(
        "{HEADER}\n\
         e,european,call,100,100,1,0.05,0,0.2,,,,\n\
         huge,barrier,call,100,100,1,0.05,0,0.2,120,up_out,,100000\n\
         p,european,put,100,100,1,0.05,0,0.2,,,,\n"
    );
    let input = file("huge.csv", &text);
    let out = input.with_extension("out.csv");
    let _ = std::fs::remove_file(&out);
    let started = std::time::Instant::now();
    let r = run(tenor()
        .env_remove("TENOR_BACKEND")
        .args(["price", "--portfolio"])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .args(["--paths", "2000"]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(":3:") && r.stderr.contains("\"huge\"") && r.stderr.contains("per-row limit"),
        "{}",
        r.stderr
    );
    let written = std::fs::read_to_string(&out).expect("output");
    let ids: Vec<&str> = written.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
    assert_eq!(ids, ["e", "p"], "{written}");
    // Nothing was simulated for the refused row (it took over a minute before).
    assert!(started.elapsed().as_secs() < 30, "took {:?}", started.elapsed());
}
