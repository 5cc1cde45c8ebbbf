//! The comparison report: `report.md`, `report.json` and `latency.svg` (candidate over baseline
//! median per workload, the allowed band marked), written as a new folder atomically.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;
use plotters::prelude::*;

use super::compare::Outcome;
use super::format::Manifest;

/// The pinned component set of a baseline, one line each: what to go back to on REJECT.
pub fn pinned(m: &Manifest) -> Vec<String> {
    let mut v = vec![
        format!("tenor {} commit {}{}", m.tenor_version, m.commit, if m.dirty == Some(true) { " (dirty)" } else { "" }),
        format!("backend {} on {} ({} compute units), driver {}", m.backend, m.device, m.compute_units, m.driver),
    ];
    v.extend(m.components.iter().map(|(k, val)| format!("{k} {val}")));
    v.extend(m.settings.iter().map(|(k, val)| format!("{k}={val}")));
    v.extend(m.libraries.iter().map(|l| format!("{} {} sha256 {}", l.path, l.version, l.sha256)));
    v
}

/// The report in Markdown.
pub fn markdown(o: &Outcome, base: &Manifest, cand: &Manifest) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# tenor compare: {}\n", o.verdict);
    let slow: Vec<&str> = o.latency.iter().filter(|l| l.regression).map(|l| l.workload.as_str()).collect();
    let _ = writeln!(
        s,
        "Values failing their rule: {}; latency regressions: {}{}{}; values, floors or timed workloads in one run only or differing: {}.\n",
        o.failures.iter().filter(|f| f.counts).count(),
        slow.len(),
        if slow.is_empty() { String::new() } else { format!(" ({})", slow.join(", ")) },
        if o.latency_rejects { "" } else { " (reported only: --latency report)" },
        o.missing.len()
    );
    let _ = writeln!(s, "Suite `{}` on backend `{}`, device {}.\n", base.suite, base.backend, base.device);
    let _ = writeln!(s, "| | baseline | candidate |\n| --- | --- | --- |");
    let _ =
        writeln!(s, "| commit | {} | {} |\n| driver | {} | {} |", base.commit, cand.commit, base.driver, cand.driver);
    for (k, v) in &base.components {
        let c = cand.components.iter().find(|(n, _)| n == k).map_or("(absent)", |(_, v)| v.as_str());
        let _ = writeln!(s, "| {k} | {v} | {c} |");
    }
    for (k, v) in &base.settings {
        let c = cand.settings.iter().find(|(n, _)| n == k).map_or("(absent)", |(_, v)| v.as_str());
        let _ = writeln!(s, "| {k} | {v} | {c} |");
    }
    let counted: Vec<_> = o.failures.iter().filter(|f| f.counts).collect();
    let _ = writeln!(s, "\n{} values compared; {} failed their rule.\n", o.compared, counted.len());
    if !o.failures.is_empty() {
        let _ = writeln!(s, "| part | id | value | baseline | candidate | diff | rule | allowed | reorder bound | class | nearer CPU reference |");
        let _ = writeln!(s, "| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- | --- |");
        for f in &o.failures {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:e} | {:e} | {:.3e} | {}{} | {:.3e} | {:.3e} | {} | {} |",
                f.part,
                f.id,
                f.value,
                f.baseline,
                f.candidate,
                f.diff,
                f.rule,
                if f.counts { "" } else { " (not compared)" },
                f.allowed,
                f.reorder_bound,
                f.class,
                f.nearer_reference
            );
        }
    }
    for m in &o.missing {
        let _ = writeln!(s, "- {m}");
    }
    let _ = writeln!(s, "\n## Latency (median; allowed slowdown max(5 %, sum of both relative IQRs); medians under 1 ms not compared)\n");
    let _ = writeln!(
        s,
        "| workload | baseline s | candidate s | ratio | allowed | |\n| --- | ---: | ---: | ---: | ---: | --- |"
    );
    for l in &o.latency {
        let _ = writeln!(
            s,
            "| {} | {:.6} | {:.6} | {:.3} | {:.1} % | {} |",
            l.workload,
            l.baseline_s,
            l.candidate_s,
            l.ratio,
            100.0 * l.allowed,
            if l.regression {
                "REGRESSION"
            } else if l.compared {
                "ok"
            } else {
                "too short to compare"
            }
        );
    }
    if o.verdict == "REJECT" {
        let _ = writeln!(s, "\n## Go back to the pinned set\n\n```");
        for l in pinned(base) {
            let _ = writeln!(s, "{l}");
        }
        let _ = writeln!(s, "```");
    }
    s
}

fn chart(o: &Outcome, path: &Path) -> anyhow::Result<()> {
    let n = o.latency.len().max(1);
    // The axis covers the ratios (at least up to 1.5); an allowed band beyond it is not drawn.
    let top = o.latency.iter().map(|l| l.ratio).filter(|r| r.is_finite()).fold(1.5, f64::max) * 1.1;
    let root = SVGBackend::new(path, (900, 120 + 28 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut c = ChartBuilder::on(&root)
        .caption(
            format!("candidate / baseline median latency ({}); black: allowed slowdown", o.verdict),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(200)
        .build_cartesian_2d(0.0..top, (0..n).into_segmented())?;
    let names: Vec<String> = o.latency.iter().map(|l| l.workload.clone()).collect();
    c.configure_mesh()
        .y_labels(n)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .x_desc("candidate median / baseline median (grey: under 1 ms, not compared; red: regression)")
        .draw()?;
    for (i, l) in o.latency.iter().enumerate() {
        let colour = if l.regression {
            RED.mix(0.6)
        } else if l.compared {
            GREEN.mix(0.6)
        } else {
            BLACK.mix(0.2)
        };
        let (lo, hi) = (SegmentValue::Exact(i), SegmentValue::Exact(i + 1));
        c.draw_series(std::iter::once(Rectangle::new(
            [(0.0, lo.clone()), (l.ratio.min(top), hi.clone())],
            colour.filled(),
        )))?;
        let band = 1.0 + l.allowed;
        if band < top {
            c.draw_series(std::iter::once(PathElement::new(vec![(band, lo), (band, hi)], BLACK.stroke_width(2))))?;
        }
    }
    root.present()?;
    Ok(())
}

/// Writes `report.md`, `report.json` and `latency.svg` into the new folder `dest` (staged beside
/// it under a random name, then renamed, [`tenor_ports::files::NewFolder`]). An existing `dest`
/// is refused.
///
/// # Errors
/// `dest` exists, or a write fails.
pub fn write(dest: &Path, o: &Outcome, base: &Manifest, cand: &Manifest) -> anyhow::Result<()> {
    let folder = tenor_ports::files::NewFolder::create(dest)?;
    let md = markdown(o, base, cand);
    folder.write_with(Path::new("report.md"), |w| w.write_all(md.as_bytes()))?;
    let json = serde_json::json!({ "outcome": o, "baseline": base, "candidate": cand, "pinned": pinned(base) });
    let json = serde_json::to_string_pretty(&json)?;
    folder.write_with(Path::new("report.json"), |w| w.write_all(json.as_bytes()))?;
    chart(o, &folder.staged_path(Path::new("latency.svg"))?).context("writing latency.svg")?;
    folder.commit()?;
    Ok(())
}
