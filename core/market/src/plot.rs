//! SVG plot of a volatility surface: market mid implied vols (dots) and the SVI fit (lines)
//! against log-moneyness `ln(K/F)`, one colour per expiry (plotters, SVG backend).

use std::path::Path;

use plotters::prelude::*;

use crate::error::{MarketError, Result};
use crate::iv::QuoteVol;
use crate::parity::ParityForward;
use crate::quotes::Chain;
use crate::surface::{slice_points, VolSurface};

/// Draws at most `max_slices` slices (evenly chosen) of `surface` with the chain's points into
/// an SVG file at `path` (1200 × 800).
///
/// # Errors
/// [`MarketError::Plot`] when drawing or writing fails.
pub fn plot_surface(
    path: &Path,
    title: &str,
    chain: &Chain,
    vols: &[QuoteVol],
    forwards: &[ParityForward],
    surface: &VolSurface,
    max_slices: usize,
) -> Result<()> {
    let err = |e: String| MarketError::Plot { path: path.to_owned(), message: e };
    let n = surface.slices.len();
    let pick: Vec<usize> = if n <= max_slices.max(1) {
        (0..n).collect()
    } else {
        let mut v: Vec<usize> = (0..max_slices).map(|i| i * (n - 1) / (max_slices - 1).max(1)).collect();
        v.dedup();
        v
    };
    let mut series = Vec::new();
    let (mut klo, mut khi, mut vhi) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &i in &pick {
        let s = &surface.slices[i];
        let Some(fwd) = forwards.iter().find(|f| f.slice == s.slice) else { continue };
        let pts: Vec<(f64, f64)> =
            slice_points(chain, vols, fwd).into_iter().map(|(k, w)| (k, (w / s.maturity).sqrt())).collect();
        for p in &pts {
            klo = klo.min(p.0);
            khi = khi.max(p.0);
            vhi = vhi.max(p.1);
        }
        series.push((i, pts));
    }
    if series.is_empty() || !klo.is_finite() {
        return Err(err("no slice with points to plot".into()));
    }
    let vhi = (vhi * 1.05).min(2.0);
    let root = SVGBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(klo..khi, 0.0..vhi)
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("log-moneyness ln(K/F)")
        .y_desc("implied volatility")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    for (j, (i, pts)) in series.iter().enumerate() {
        let s = &surface.slices[*i];
        let colour = Palette99::pick(j).to_rgba();
        chart
            .draw_series(pts.iter().map(|&(k, v)| Circle::new((k, v), 2, colour.filled())))
            .map_err(|e| err(e.to_string()))?;
        let curve: Vec<(f64, f64)> = (0..=300)
            .filter_map(|q| {
                let k = klo + (khi - klo) * f64::from(q) / 300.0;
                Some((k, s.fit.params.implied_vol(k, s.maturity)?))
            })
            .filter(|p| p.1 <= vhi)
            .collect();
        chart
            .draw_series(LineSeries::new(curve, colour.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(format!("{} {} (T = {:.3})", s.slice.0, s.slice.1.as_str(), s.maturity))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}
