//! Estimators from the kernels' block partial sums.
//!
//! Kernels write per-block sums of the pair averages `Y_i` (and of their squares and cross
//! products); [`reduce`] adds them over blocks in block order, then the estimators below turn
//! the totals into a price and a standard error: `mean = S / n`,
//! `var = (Q - S mean) / (n - 1)`, `stderr = sqrt(var / n)` over the `n` antithetic pairs.

use super::{McError, McPrice};

/// Adds `partials` (`width` values per block) over blocks, in block order.
///
/// # Errors
/// [`McError::BadResult`] when the length is not a multiple of `width`.
pub fn reduce(partials: &[f64], width: usize) -> Result<Vec<f64>, McError> {
    if width == 0 || !partials.len().is_multiple_of(width) {
        return Err(McError::BadResult(format!("{} partials are not blocks of {width}", partials.len())));
    }
    let mut total = vec![0.0; width];
    for block in partials.chunks_exact(width) {
        for (t, v) in total.iter_mut().zip(block) {
            *t += v;
        }
    }
    Ok(total)
}

fn moments(sum: f64, sum_sq: f64, n: f64) -> (f64, f64) {
    let mean = sum / n;
    (mean, ((sum_sq - sum * mean) / (n - 1.0)).max(0.0))
}

/// Plain estimator from the sum and the sum of squares of `pairs` pair averages.
pub fn plain_estimate(sum: f64, sum_sq: f64, pairs: u64) -> McPrice {
    let n = pairs as f64;
    let (mean, var) = moments(sum, sum_sq, n);
    McPrice { price: mean, stderr: (var / n).sqrt(), paths: 2 * pairs }
}

/// Control-variate estimator (Glasserman 2004, sec. 4.1): target sums `(a, a^2)`, control sums
/// `(g, g^2)`, cross sum `a g`, the control's exact mean `exact`. The coefficient
/// `b = cov(a, g) / var(g)` is estimated from the same sample; the price is
/// `mean(a) - b (mean(g) - exact)` and its variance per pair `var(a) - cov^2 / var(g)`.
pub fn control_variate(sums: [f64; 5], exact: f64, pairs: u64) -> McPrice {
    let n = pairs as f64;
    let [sa, saa, sg, sgg, sag] = sums;
    let (ma, va) = moments(sa, saa, n);
    let (mg, vg) = moments(sg, sgg, n);
    let cov = (sag - sa * mg) / (n - 1.0);
    let (b, var) = if vg > 0.0 { (cov / vg, (va - cov * cov / vg).max(0.0)) } else { (0.0, va) };
    McPrice { price: ma - b * (mg - exact), stderr: (var / n).sqrt(), paths: 2 * pairs }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: values 1, 2, 3, 4 have mean 2.5, sample variance 5/3.
    #[test]
    fn plain_estimate_by_hand() {
        let p = plain_estimate(10.0, 30.0, 4);
        assert_eq!(p.price, 2.5);
        assert!((p.stderr - (5.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-15);
    }

    /// A target equal to its control plus a constant has zero residual variance, and the
    /// estimate is the exact control mean plus that constant.
    #[test]
    fn perfect_control_removes_all_variance() {
        let g = [1.0, 2.0, 4.0, 7.0];
        let a: Vec<f64> = g.iter().map(|x| x + 0.5).collect();
        let s = |v: &[f64]| v.iter().sum::<f64>();
        let sums = [
            s(&a),
            a.iter().map(|x| x * x).sum(),
            s(&g),
            g.iter().map(|x| x * x).sum(),
            a.iter().zip(&g).map(|(x, y)| x * y).sum(),
        ];
        let p = control_variate(sums, 3.0, 4);
        assert!((p.price - 3.5).abs() < 1e-12, "{}", p.price);
        assert!(p.stderr < 1e-7, "{}", p.stderr);
    }

    #[test]
    fn reduce_adds_blocks_in_order() {
        let r = reduce(&[1.0, 10.0, 2.0, 20.0, 3.0, 30.0], 2).expect("whole blocks");
        assert_eq!(r, vec![6.0, 60.0]);
        assert!(reduce(&[1.0, 2.0, 3.0], 2).is_err());
    }
}
