//! The pilot's report: `pilot.json` (everything, machine-readable) and `pilot.md` (tables and
//! the SVG charts from [`super::charts`]).

use std::fmt::Write as _;
use std::path::Path;

use super::{PeerRow, Report};

/// A peer's figure set against one Tenor backend's figure on the same workload.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PeerComparison {
    /// The peer's row as merged.
    pub peer: PeerRow,
    /// The Tenor row it is compared with; `None` when no backend measured the workload at or
    /// below the peer's size.
    pub tenor: Option<TenorSide>,
}

/// The Tenor side of a [`PeerComparison`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct TenorSide {
    /// Backend.
    pub backend: String,
    /// The pilot's size compared: the peer's size, or the largest measured size below it.
    pub size: u64,
    /// Tenor's rate at that size, in the peer's unit.
    pub rate: f64,
    /// Tenor rate / peer rate (above 1 when Tenor is faster).
    pub ratio: f64,
}

/// Matches every peer row with every backend's throughput row of the same workload and unit:
/// at the peer's size if measured, else at the backend's largest measured size below it (rates
/// are per second, so sizes that differ still compare; the sizes are reported). Backends without
/// such a row give no comparison; a peer without any gets one with `tenor: None`.
pub fn peer_ratios(r: &Report) -> Vec<PeerComparison> {
    let mut out = Vec::new();
    for p in &r.peers {
        let mut backends: Vec<&str> = Vec::new();
        for t in &r.throughput {
            if !backends.contains(&t.backend.as_str()) {
                backends.push(&t.backend);
            }
        }
        let before = out.len();
        for b in backends {
            let best = r
                .throughput
                .iter()
                .filter(|t| t.backend == b && t.workload == p.workload && t.unit == p.unit && t.size <= p.size)
                .max_by_key(|t| t.size);
            if let Some(t) = best {
                let ratio = if p.rate > 0.0 { t.rate / p.rate } else { f64::NAN };
                out.push(PeerComparison {
                    peer: p.clone(),
                    tenor: Some(TenorSide { backend: b.to_owned(), size: t.size, rate: t.rate, ratio }),
                });
            }
        }
        if out.len() == before {
            out.push(PeerComparison { peer: p.clone(), tenor: None });
        }
    }
    out
}

fn si(x: f64) -> String {
    let (v, p) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .iter()
        .find(|(s, _)| x.abs() >= *s)
        .map_or((x, ""), |(s, p)| (x / s, *p));
    format!("{v:.3}{p}")
}

/// Renders the Markdown report.
pub fn markdown(r: &Report, charts: &[String]) -> String {
    let mut m = String::new();
    let e = &r.env;
    let _ = writeln!(m, "# Tenor pilot report ({:?} suite)\n", r.suite);
    let _ = writeln!(
        m,
        "Tenor {} at commit `{}` ({}); host {} ({} CPUs), {}; unix time {}.\n",
        e.tenor_version,
        e.commit,
        match e.dirty {
            Some(true) => "dirty: tracked files had uncommitted changes at build time",
            Some(false) => "clean: no uncommitted changes to tracked files at build time",
            None => "no git checkout at build time",
        },
        e.cpu,
        e.cpus,
        e.os,
        e.unix_time
    );
    let _ = writeln!(m, "## Backends\n\n| backend | device | driver | versions | status |\n|---|---|---|---|---|");
    for b in &e.backends {
        let vers = b.versions.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} |",
            b.backend,
            b.device.as_deref().unwrap_or("-"),
            b.driver.as_deref().unwrap_or("-"),
            vers,
            b.unavailable.as_deref().map_or_else(|| "measured".to_owned(), |u| format!("unavailable: {u}"))
        );
    }
    let _ = writeln!(m, "\n### On-disk kernel caches at the start of the run (read before the backend was opened; never cleared)\n\n| backend | cache | settings |\n|---|---|---|");
    for b in &e.backends {
        let set = b.kernel_cache.settings.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ");
        let _ =
            writeln!(m, "| {} | {} | {} |", b.backend, b.kernel_cache.summary, if set.is_empty() { "-" } else { &set });
    }
    let _ = writeln!(m, "\n## Warm throughput (median over repeats; spread = IQR / median)\n\n| backend | workload | size | rate | unit | median | spread |\n|---|---|---|---|---|---|---|");
    for t in &r.throughput {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {:.3e} s | {:.1} % |",
            t.backend,
            t.workload,
            t.size,
            si(t.rate),
            t.unit,
            t.warm.median_s,
            100.0 * t.warm.rel_iqr
        );
    }
    let _ = writeln!(m, "\n## Cold start (after the switch below started the runtime, before any warm measurement: a fresh device, then the first call with kernel load or compilation; see the kernel caches above)\n\n| backend | workload | open | first call | warm call | kernels loaded earlier in the process |\n|---|---|---|---|---|---|");
    for c in &r.cold {
        let before = if c.loaded_before.is_empty() { "none".to_owned() } else { c.loaded_before.join(", ") };
        let _ = writeln!(
            m,
            "| {} | {} | {:.3e} s | {:.3e} s | {:.3e} s | {} |",
            c.backend, c.workload, c.open_s, c.first_call_s, c.warm_s, before
        );
    }
    let _ = writeln!(m, "\n## Scaling over streams (fixed total size split over k streams, within --max-mib)\n\n| backend | workload | size | streams | rate | unit | median |\n|---|---|---|---|---|---|---|");
    for s in &r.scaling {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {} | {:.3e} s |",
            s.backend,
            s.workload,
            s.size,
            s.streams,
            si(s.rate),
            s.unit,
            s.warm.median_s
        );
    }
    if !r.devices.is_empty() {
        m += &devices_markdown(&r.device_env, &r.devices);
    }
    let _ = writeln!(m, "\n## Adapter-swap cost\n\n### 1. Port overhead (`dyn Compute` with argument checks and hazard tracking, against the adapter's driver called directly)\n\nThe two calls are timed in interleaved pairs, alternating which goes first; overhead / launch is the median of the per-pair differences (port - direct), with their quartiles, and relative is that over the direct median.\n\n| backend | paths | pairs | port median | direct median | overhead / launch | quartiles of differences | relative | same results |\n|---|---|---|---|---|---|---|---|---|");
    for o in &r.overhead {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {:.3e} s | {:.3e} s | {:.3} µs | {:.3} .. {:.3} µs | {:.2} % | {} |",
            o.backend,
            o.paths,
            o.pairs,
            o.port.median_s,
            o.direct.median_s,
            o.overhead_us,
            o.overhead_iqr_us.0,
            o.overhead_iqr_us.1,
            100.0 * o.overhead_rel,
            o.same_results
        );
    }
    let _ = writeln!(m, "\n### 2. Switching at run time (select the backend, then the first verified price; the first time the process touches the backend, so runtime start and kernel compilation or cache load are included)\n\n| backend | seconds | of which open | price | Black-Scholes | stderr | correct |\n|---|---|---|---|---|---|---|");
    for s in &r.switch {
        let _ = writeln!(
            m,
            "| {} | {:.3} | {:.3} | {:.6} | {:.6} | {:.2e} | {} |",
            s.backend, s.seconds, s.open_s, s.price, s.reference, s.stderr, s.correct
        );
    }
    let _ = writeln!(m, "\n### 3. Code cost (non-blank lines; strategy and pricing code is shared and unchanged across backends)\n\n| backend | adapter | kernel sources |\n|---|---|---|");
    for c in &r.code {
        let _ = writeln!(m, "| {} | {} | {} |", c.backend, c.adapter_lines, c.kernel_lines);
    }
    let _ = writeln!(m, "\n## Book (a replicated one-trade-per-kind book, every row by Monte Carlo through the book pricer's batch launches; median of 3 after a warm-up)\n\n| backend | kind | greeks | trades | paths | seconds | trades/s |\n|---|---|---|---|---|---|---|");
    for b in &r.book {
        let greeks = if b.greeks { "on" } else { "off" };
        let _ = writeln!(
            m,
            "| {} | {} | {greeks} | {} | {} | {:.4} | {} |",
            b.backend,
            b.kind,
            b.trades,
            b.paths,
            b.seconds,
            si(b.trades_per_s)
        );
    }
    let _ = writeln!(m, "\n## Basket (the STAC-A2 job, docs/basket.md: the baseline with every Greek, the large problem's price; cold = the backend opened and its first job, warm = median of 3 more)\n\n| backend | workload | assets x paths x steps | greeks | valuations | open s | cold s | warm s | price |\n|---|---|---|---|---|---|---|---|---|");
    for b in &r.basket {
        let greeks = if b.greeks { "all" } else { "price" };
        let _ = writeln!(
            m,
            "| {} | {} | {} x {} x {} | {greeks} | {} | {:.4} | {:.4} | {:.4} | {:.6} |",
            b.backend, b.workload, b.assets, b.paths, b.steps, b.valuations, b.open_s, b.cold_s, b.warm_s, b.price
        );
    }
    let _ = writeln!(m, "\n## Agreement with the CPU reference\n\n| backend | workload | kind | max rel diff | tolerance | agrees |\n|---|---|---|---|---|---|");
    for a in &r.agreement {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {:.2e} | {:.0e} | {} |",
            a.backend, a.workload, a.kind, a.max_rel_diff, a.tolerance, a.agrees
        );
    }
    if !r.peers.is_empty() {
        let _ = writeln!(m, "\n## Peers (same problems, same run; ratio = Tenor / peer, above 1 when Tenor is faster)\n\nA peer is compared with the pilot's row at the same size or, when the sizes differ, at the pilot's largest size at or below the peer's; both sizes are shown.\n\n| peer | workload | peer size | peer rate | Tenor backend | Tenor size | Tenor rate | unit | Tenor / peer |\n|---|---|---|---|---|---|---|---|---|");
        for c in peer_ratios(r) {
            let (backend, size, rate, ratio) = match &c.tenor {
                Some(t) => (t.backend.as_str(), t.size.to_string(), si(t.rate), format!("{:.2}x", t.ratio)),
                None => ("-", "-".into(), "-".into(), "no Tenor row at or below the peer's size".into()),
            };
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                c.peer.peer,
                c.peer.workload,
                c.peer.size,
                si(c.peer.rate),
                backend,
                size,
                rate,
                c.peer.unit,
                ratio
            );
        }
    }
    if let Some(v) = super::versus::versus(r, "cuda") {
        super::versus::markdown(&v, &mut m);
    }
    if !charts.is_empty() {
        let _ = writeln!(m, "\n## Charts\n");
        for c in charts {
            let _ = writeln!(m, "![{c}]({c})\n");
        }
    }
    m
}

/// Writes `pilot.json`, `pilot.md` and the charts into `dir`.
///
/// # Errors
/// I/O and serialisation errors, with the path.
pub fn write(r: &Report, dir: &Path) -> anyhow::Result<Vec<std::path::PathBuf>> {
    tenor_ports::files::create_folder(dir)?;
    let charts = super::charts::write_all(r, dir)?;
    let json = dir.join("pilot.json");
    let mut value = serde_json::to_value(r)?;
    if let Some(obj) = value.as_object_mut() {
        obj.insert("peer_ratios".into(), serde_json::to_value(peer_ratios(r))?);
        obj.insert("versus_cuda".into(), serde_json::to_value(super::versus::versus(r, "cuda"))?);
    }
    tenor_ports::files::write_atomic(&json, serde_json::to_string_pretty(&value)?.as_bytes())?;
    let md = dir.join("pilot.md");
    tenor_ports::files::write_atomic(&md, markdown(r, &charts).as_bytes())?;
    let mut files = vec![json, md];
    files.extend(charts.iter().map(|c| dir.join(c)));
    Ok(files)
}

/// The device-scaling section: the devices and their peer access, then one row per workload
/// and device count (`tenor pilot run --devices` and `tenor pilot devices`).
#[must_use]
pub fn devices_markdown(env: &[String], rows: &[super::devices::DeviceScalingRow]) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "\n## Scaling over devices (a fixed total split over the first k devices, a host thread each; the book split by cost and checked bitwise against one device)\n");
    for line in env {
        let _ = writeln!(m, "- {line}");
    }
    let _ = writeln!(m, "\n| selector | workload | size | devices | rate | unit | median | speedup | identical to 1 device |\n|---|---|---|---|---|---|---|---|---|");
    for d in rows {
        let same = match (d.workload.as_str(), d.identical) {
            ("book", true) => "yes",
            ("book", false) => "NO",
            _ => "-",
        };
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {} | {:.3e} s | {:.2}x | {same} |",
            d.selector,
            d.workload,
            d.size,
            d.devices,
            si(d.rate),
            d.unit,
            d.warm.median_s,
            d.speedup
        );
    }
    m
}
