//! Every stack against CUDA on the same GPU (issue 13, "the report answers the question"):
//! warm throughput as a ratio to CUDA per workload and size, the headline ratio at the largest
//! size both measured (device-filling in the default suite) with the 85 % target on the fused
//! Monte Carlo workloads, cold start against CUDA's, the best stream count, and agreement per
//! backend. These are the verdict's inputs; `pilot.md` prints them and `pilot.json` holds them
//! under `versus_cuda`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::{ColdRow, Report, ScalingRow, ThroughputRow};

/// The fused Monte Carlo workloads the 85 % target applies to (European fp64 and fp32, the
/// 252-step Asian fp64 and fp32).
pub const FUSED_MC: &[&str] = &["mc_european_f64", "mc_european_f32", "mc_asian_f64", "mc_asian_f32"];

/// The target: a portable stack's warm throughput over CUDA's on [`FUSED_MC`].
pub const TARGET: f64 = 0.85;

/// One backend's warm throughput against the base backend's at the same workload, size and unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatioRow {
    /// Backend compared.
    pub backend: String,
    /// Workload.
    pub workload: String,
    /// Size (paths, rows or curves).
    pub size: u64,
    /// Unit of the rates.
    pub unit: String,
    /// The backend's rate.
    pub rate: f64,
    /// The base backend's rate.
    pub base_rate: f64,
    /// rate / base_rate (1 = as fast as the base).
    pub ratio: f64,
    /// [`TARGET`] where the workload is one of [`FUSED_MC`].
    pub target: Option<f64>,
}

/// Cold start against the base backend's, per workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColdRatio {
    /// Backend compared.
    pub backend: String,
    /// Workload.
    pub workload: String,
    /// Open + first call of the backend, seconds.
    pub cold_s: f64,
    /// Open + first call of the base, seconds.
    pub base_cold_s: f64,
    /// cold_s / base_cold_s (above 1 when slower to start).
    pub ratio: f64,
}

/// The best rate over stream counts at one size, against one stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamSummary {
    /// Backend.
    pub backend: String,
    /// Workload.
    pub workload: String,
    /// Total size.
    pub size: u64,
    /// The stream count with the highest rate.
    pub best_streams: usize,
    /// That rate over the one-stream rate.
    pub gain_over_one: f64,
    /// That rate over the base backend's best rate at the same size (None without one).
    pub ratio_to_base_best: Option<f64>,
}

/// Agreement of one backend with the CPU reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgreementSummary {
    /// Backend.
    pub backend: String,
    /// Rows compared.
    pub rows: usize,
    /// Rows that agreed.
    pub agreed: usize,
}

/// Everything the verdict is written from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Versus {
    /// The base backend (`cuda`).
    pub base: String,
    /// Every (backend, workload, size) with a base row.
    pub ratios: Vec<RatioRow>,
    /// Per backend and workload, the ratio at the largest size both measured.
    pub headline: Vec<RatioRow>,
    /// Cold start against the base.
    pub cold: Vec<ColdRatio>,
    /// Best stream counts.
    pub streams: Vec<StreamSummary>,
    /// Agreement per backend.
    pub agreement: Vec<AgreementSummary>,
}

fn target_of(workload: &str) -> Option<f64> {
    FUSED_MC.contains(&workload).then_some(TARGET)
}

/// Every non-base row of `rows` whose (workload, size, unit) the base measured, as a ratio.
pub fn throughput_ratios(rows: &[ThroughputRow], base: &str) -> Vec<RatioRow> {
    let base_rates: BTreeMap<(&str, u64, &str), f64> = rows
        .iter()
        .filter(|t| t.backend == base)
        .map(|t| ((t.workload.as_str(), t.size, t.unit.as_str()), t.rate))
        .collect();
    rows.iter()
        .filter(|t| t.backend != base)
        .filter_map(|t| {
            let b = *base_rates.get(&(t.workload.as_str(), t.size, t.unit.as_str()))?;
            (b > 0.0).then(|| RatioRow {
                backend: t.backend.clone(),
                workload: t.workload.clone(),
                size: t.size,
                unit: t.unit.clone(),
                rate: t.rate,
                base_rate: b,
                ratio: t.rate / b,
                target: target_of(&t.workload),
            })
        })
        .collect()
}

/// Per (backend, workload), the ratio at the largest size both measured.
pub fn headline(ratios: &[RatioRow]) -> Vec<RatioRow> {
    let mut best: BTreeMap<(&str, &str), &RatioRow> = BTreeMap::new();
    for r in ratios {
        let e = best.entry((r.backend.as_str(), r.workload.as_str())).or_insert(r);
        if r.size > e.size {
            *e = r;
        }
    }
    best.into_values().cloned().collect()
}

/// Cold start (open + first call) of every non-base backend against the base's, per workload.
pub fn cold_ratios(cold: &[ColdRow], base: &str) -> Vec<ColdRatio> {
    let base_cold: BTreeMap<&str, f64> =
        cold.iter().filter(|c| c.backend == base).map(|c| (c.workload.as_str(), c.open_s + c.first_call_s)).collect();
    cold.iter()
        .filter(|c| c.backend != base)
        .filter_map(|c| {
            let b = *base_cold.get(c.workload.as_str())?;
            let s = c.open_s + c.first_call_s;
            (b > 0.0).then(|| ColdRatio {
                backend: c.backend.clone(),
                workload: c.workload.clone(),
                cold_s: s,
                base_cold_s: b,
                ratio: s / b,
            })
        })
        .collect()
}

/// The best stream count per (backend, workload, size), its gain over one stream and its rate
/// over the base's best at the same size.
pub fn stream_summaries(scaling: &[ScalingRow], base: &str) -> Vec<StreamSummary> {
    let mut groups: BTreeMap<(&str, &str, u64), Vec<&ScalingRow>> = BTreeMap::new();
    for s in scaling {
        groups.entry((s.backend.as_str(), s.workload.as_str(), s.size)).or_default().push(s);
    }
    let best_rate = |rows: &[&ScalingRow]| rows.iter().map(|s| s.rate).fold(f64::NAN, f64::max);
    groups
        .iter()
        .filter_map(|(&(backend, workload, size), rows)| {
            let best = rows.iter().max_by(|a, b| a.rate.total_cmp(&b.rate))?;
            let one = rows.iter().find(|s| s.streams == 1).map_or(f64::NAN, |s| s.rate);
            let base_best = groups.get(&(base, workload, size)).map(|r| best_rate(r));
            Some(StreamSummary {
                backend: backend.to_owned(),
                workload: workload.to_owned(),
                size,
                best_streams: best.streams,
                gain_over_one: best.rate / one,
                ratio_to_base_best: if backend == base { None } else { base_best.map(|b| best.rate / b) },
            })
        })
        .collect()
}

/// The verdict's inputs for `r` against `base`; `None` when the base measured nothing.
pub fn versus(r: &Report, base: &str) -> Option<Versus> {
    if !r.throughput.iter().any(|t| t.backend == base) {
        return None;
    }
    let ratios = throughput_ratios(&r.throughput, base);
    let mut agreement: BTreeMap<&str, AgreementSummary> = BTreeMap::new();
    for a in &r.agreement {
        let e = agreement.entry(a.backend.as_str()).or_insert_with(|| AgreementSummary {
            backend: a.backend.clone(),
            rows: 0,
            agreed: 0,
        });
        e.rows += 1;
        e.agreed += usize::from(a.agrees);
    }
    Some(Versus {
        base: base.to_owned(),
        headline: headline(&ratios),
        ratios,
        cold: cold_ratios(&r.cold, base),
        streams: stream_summaries(&r.scaling, base),
        agreement: agreement.into_values().collect(),
    })
}

/// Appends the "Against CUDA" section to a report's Markdown.
pub fn markdown(v: &Versus, m: &mut String) {
    let _ = writeln!(
        m,
        "\n## Against {base} on the same device (warm throughput ratio = backend / {base}; the target is {:.0} % on the fused Monte Carlo workloads)\n\n### At the largest size both measured\n\n| backend | workload | size | rate | {base} rate | unit | ratio | target met |\n|---|---|---|---|---|---|---|---|",
        100.0 * TARGET,
        base = v.base
    );
    for r in &v.headline {
        let met = r.target.map_or_else(|| "-".to_owned(), |t| if r.ratio >= t { "yes".into() } else { "NO".into() });
        let _ = writeln!(
            m,
            "| {} | {} | {} | {:.4e} | {:.4e} | {} | {:.1} % | {} |",
            r.backend,
            r.workload,
            r.size,
            r.rate,
            r.base_rate,
            r.unit,
            100.0 * r.ratio,
            met
        );
    }
    let _ = writeln!(m, "\n### Every size\n\n| backend | workload | size | ratio |\n|---|---|---|---|");
    for r in &v.ratios {
        let _ = writeln!(m, "| {} | {} | {} | {:.1} % |", r.backend, r.workload, r.size, 100.0 * r.ratio);
    }
    let _ = writeln!(
        m,
        "\n### Cold start (open + first call, including kernel compilation or JIT) against {}\n\n| backend | workload | seconds | {} seconds | ratio |\n|---|---|---|---|---|",
        v.base, v.base
    );
    for c in &v.cold {
        let _ = writeln!(
            m,
            "| {} | {} | {:.3e} | {:.3e} | {:.2}x |",
            c.backend, c.workload, c.cold_s, c.base_cold_s, c.ratio
        );
    }
    let _ = writeln!(
        m,
        "\n### Streams: the best count per size\n\n| backend | workload | size | best streams | gain over 1 stream | best rate / {}'s best |\n|---|---|---|---|---|---|",
        v.base
    );
    for s in &v.streams {
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {:.2}x | {} |",
            s.backend,
            s.workload,
            s.size,
            s.best_streams,
            s.gain_over_one,
            s.ratio_to_base_best.map_or_else(|| "-".to_owned(), |x| format!("{:.1} %", 100.0 * x))
        );
    }
    let _ = writeln!(m, "\n### Agreement with the CPU reference\n\n| backend | rows | agreed |\n|---|---|---|");
    for a in &v.agreement {
        let _ = writeln!(m, "| {} | {} | {} |", a.backend, a.rows, a.agreed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Stats;

    fn row(backend: &str, workload: &str, size: u64, rate: f64) -> ThroughputRow {
        let warm = Stats { median_s: 1.0, min_s: 1.0, max_s: 1.0, rel_iqr: 0.0, repeats: 1 };
        ThroughputRow { backend: backend.into(), workload: workload.into(), size, unit: "paths/s".into(), warm, rate }
    }

    #[test]
    fn ratios_pair_rows_of_the_same_workload_and_size_and_headline_takes_the_largest() {
        let rows = vec![
            row("cuda", "mc_european_f64", 1000, 4.0e9),
            row("cuda", "mc_european_f64", 8000, 8.0e9),
            row("sycl", "mc_european_f64", 1000, 1.0e9),
            row("sycl", "mc_european_f64", 8000, 7.2e9),
            // No CUDA row at this size: no ratio.
            row("sycl", "mc_european_f64", 16000, 9.0e9),
            row("opencl", "curve_build", 8000, 3.0e6),
        ];
        let r = throughput_ratios(&rows, "cuda");
        // Hand-computed: 1e9 / 4e9 and 7.2e9 / 8e9.
        assert_eq!(r.len(), 2);
        assert!((r[0].ratio - 0.25).abs() < 1e-15);
        assert!((r[1].ratio - 0.9).abs() < 1e-15);
        assert_eq!(r[1].target, Some(0.85));
        let h = headline(&r);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].size, 8000);
    }

    #[test]
    fn streams_summary_picks_the_best_count_and_compares_with_the_base_best() {
        let s = |backend: &str, streams: usize, rate: f64| ScalingRow {
            backend: backend.into(),
            workload: "mc_european_f64".into(),
            size: 100,
            streams,
            warm: Stats { median_s: 1.0, min_s: 1.0, max_s: 1.0, rel_iqr: 0.0, repeats: 1 },
            rate,
            unit: "paths/s".into(),
        };
        let rows =
            vec![s("cuda", 1, 10.0), s("cuda", 4, 20.0), s("sycl", 1, 8.0), s("sycl", 2, 12.0), s("sycl", 8, 11.0)];
        let out = stream_summaries(&rows, "cuda");
        let sy = out.iter().find(|x| x.backend == "sycl").expect("sycl row");
        assert_eq!(sy.best_streams, 2);
        assert!((sy.gain_over_one - 1.5).abs() < 1e-15);
        assert_eq!(sy.ratio_to_base_best, Some(0.6));
        let cu = out.iter().find(|x| x.backend == "cuda").expect("cuda row");
        assert_eq!((cu.best_streams, cu.ratio_to_base_best), (4, None));
    }
}
