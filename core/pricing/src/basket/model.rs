//! The basket's model as the kernels take it: each asset's QE constants (one record of
//! `tenor_kernels::basket::RECORD` values), the factor matrix that correlates the 2N normals,
//! the records' derivatives by the Greeks' parameters (the tangent records) and the derivative
//! of the factor matrix by each price correlation (`tenor_kernels::basket` describes the layout;
//! ADR 0031 and ADR 0038 the method).

use tenor_kernels::basket::{record, tangent_records, RECORD, TANGENTS};

use super::error::BasketError;
use super::job::BasketJob;

/// Relative spot bump of the gammas and cross gammas (differences of pathwise deltas of the
/// spot-rescaled scenarios; ADR 0031 has the bias and noise measured at other sizes).
pub const GAMMA_BUMP: f64 = 0.02;

/// Pivots of the factor matrix's Cholesky factorisation at or under this are taken as 0 (a
/// positive semi-definite matrix of rank below 2N).
const PIVOT_ZERO: f64 = 1e-13;

/// The kernels' inputs for one job.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Assets N.
    pub n: usize,
    /// Base records, N x `RECORD`.
    pub assets: Vec<f64>,
    /// Tangent records, N x `TANGENTS` x `RECORD`: each asset's record differentiated by its
    /// sqrt(v0), kappa, theta, xi, and by the maturity (`tenor_kernels::basket::tangent_records`).
    pub tangents: Vec<f64>,
    /// Lower-triangular 2N x 2N factor, row-major, factor order `(W_v1..W_vN, W_S1..W_SN)`:
    /// rows `i < N` give `Z_v,i`, rows `N + i` the normal of `W_S,i` independent of `W_v,i`.
    pub factor: Vec<f64>,
    /// Per pair `(i < j)`: the derivative by `prices[i][j]` (the pair moved together) of the
    /// factor's rows `N + k`, columns `N + m` (N x N); at least one value.
    pub dfactor: Vec<f64>,
    /// Step `maturity / steps`.
    pub dt: f64,
}

/// Cholesky factor (lower, row-major, `m x m`) of a positive semi-definite matrix: a pivot at
/// or under [`PIVOT_ZERO`] leaves its column 0 (the rest of the matrix has no component along
/// it). Returns the factor and whether every pivot was positive.
fn cholesky_psd(a: &[Vec<f64>]) -> (Vec<f64>, bool) {
    let m = a.len();
    let mut l = vec![0.0; m * m];
    let mut definite = true;
    for k in 0..m {
        let d = a[k][k] - (0..k).map(|j| l[k * m + j] * l[k * m + j]).sum::<f64>();
        if d <= PIVOT_ZERO {
            definite = false;
            continue;
        }
        let lkk = d.sqrt();
        l[k * m + k] = lkk;
        for r in k + 1..m {
            l[r * m + k] = (a[r][k] - (0..k).map(|j| l[r * m + j] * l[k * m + j]).sum::<f64>()) / lkk;
        }
    }
    (l, definite)
}

/// The derivative of the Cholesky factor `l` (lower, `m x m`, positive diagonal) of `S` along
/// the symmetric direction `e_i e_j^T + e_j e_i^T`: `L Phi(L^-1 dS L^-T)`, `Phi` keeping the
/// lower triangle with half the diagonal (Murray 2016, "Differentiation of the Cholesky
/// decomposition", eq. 9).
fn cholesky_derivative(l: &[f64], m: usize, i: usize, j: usize) -> Vec<f64> {
    // X = L^-1 dS L^-T with dS = e_i e_j^T + e_j e_i^T: X = u w^T + w u^T, u = L^-1 e_i, w = L^-1 e_j.
    let solve = |k: usize| {
        let mut y = vec![0.0; m];
        for r in 0..m {
            let mut s = if r == k { 1.0 } else { 0.0 };
            for c in 0..r {
                s -= l[r * m + c] * y[c];
            }
            y[r] = s / l[r * m + r];
        }
        y
    };
    let (u, w) = (solve(i), solve(j));
    let mut phi = vec![0.0; m * m];
    for r in 0..m {
        for c in 0..=r {
            let x = u[r] * w[c] + w[r] * u[c];
            phi[r * m + c] = if r == c { 0.5 * x } else { x };
        }
    }
    let mut d = vec![0.0; m * m];
    for r in 0..m {
        for c in 0..=r {
            d[r * m + c] = (c..=r).map(|k| l[r * m + k] * phi[k * m + c]).sum();
        }
    }
    d
}

impl Model {
    /// The kernels' inputs for `job` (validated); with `greeks`, also the tangent records and the
    /// factor's derivatives.
    ///
    /// # Errors
    /// [`BasketError::Invalid`] on `correlation.prices` when correlation vegas are asked for and
    /// the price block of the factor correlation, given the variances, is singular (its
    /// Cholesky factor has no derivative there).
    pub fn new(job: &BasketJob, greeks: bool) -> Result<Self, BasketError> {
        let n = job.n();
        let steps = f64::from(job.simulation.steps);
        let t = job.option.maturity;
        let dt = t / steps;
        let mut assets = Vec::with_capacity(n * RECORD);
        let mut tangents = Vec::with_capacity(n * TANGENTS * RECORD);
        for (i, a) in job.assets.iter().enumerate() {
            let (w, drift) = (job.option.weights[i], job.rate - a.dividend);
            assets.extend_from_slice(&record(a.spot, w, drift, a.v0, a.kappa, a.theta, a.xi, a.rho, dt));
            for r in tangent_records(a.spot, w, drift, a.v0, a.kappa, a.theta, a.xi, a.rho, dt, job.simulation.steps) {
                tangents.extend_from_slice(&r);
            }
        }

        // The factor correlation in the order (W_v, W_S).
        let c = job.factor_correlation();
        let at = |k: usize| if k < n { n + k } else { k - n };
        let perm: Vec<Vec<f64>> = (0..2 * n).map(|r| (0..2 * n).map(|s| c[at(r)][at(s)]).collect()).collect();
        let m = 2 * n;
        let (l, _) = cholesky_psd(&perm);
        let mut factor = l.clone();
        for i in 0..n {
            let scale = 1.0 / (1.0 - job.assets[i].rho * job.assets[i].rho).sqrt();
            for col in 0..m {
                factor[(n + i) * m + col] = (l[(n + i) * m + col] - job.assets[i].rho * l[i * m + col]) * scale;
            }
        }

        let pairs = n * (n - 1) / 2;
        let mut dfactor = vec![0.0; (pairs * n * n).max(1)];
        if greeks && pairs > 0 {
            // The price block of the factor: chol of the Schur complement C_SS - L_Sv L_Sv^T,
            // which alone depends on prices[i][j].
            let mut lss = vec![0.0; n * n];
            for r in 0..n {
                for s in 0..=r {
                    lss[r * n + s] = l[(n + r) * m + n + s];
                }
            }
            if (0..n).any(|k| lss[k * n + k] <= PIVOT_ZERO) {
                return Err(BasketError::invalid(
                    "correlation.prices",
                    "correlation vegas need the price correlations positive definite given the variances' (the \
                     Cholesky factor has no derivative at a singular matrix); price it without Greeks",
                ));
            }
            let mut k = 0;
            for i in 0..n {
                for j in i + 1..n {
                    let d = cholesky_derivative(&lss, n, i, j);
                    for r in 0..n {
                        let scale = 1.0 / (1.0 - job.assets[r].rho * job.assets[r].rho).sqrt();
                        for s in 0..=r {
                            dfactor[(k * n + r) * n + s] = d[r * n + s] * scale;
                        }
                    }
                    k += 1;
                }
            }
        }
        Ok(Self { n, assets, tangents, factor, dfactor, dt })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derivative formula against a central difference of the factorisation.
    #[test]
    fn cholesky_derivative_matches_differences() {
        let s = vec![vec![1.0, 0.3, 0.2], vec![0.3, 1.0, 0.5], vec![0.2, 0.5, 1.0]];
        let (l, ok) = cholesky_psd(&s);
        assert!(ok);
        let d = cholesky_derivative(&l, 3, 0, 2);
        let h = 1e-6;
        let bump = |x: f64| {
            let mut b = s.clone();
            b[0][2] += x;
            b[2][0] += x;
            cholesky_psd(&b).0
        };
        let (up, dn) = (bump(h), bump(-h));
        for k in 0..9 {
            let fd = (up[k] - dn[k]) / (2.0 * h);
            assert!((fd - d[k]).abs() < 1e-8, "entry {k}: {fd} vs {}", d[k]);
        }
    }

    /// A singular (semi-definite) matrix factors with a zero column and reproduces itself.
    #[test]
    fn semi_definite_factor_reproduces_the_matrix() {
        let s = vec![vec![1.0, 1.0, 0.0], vec![1.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]];
        let (l, ok) = cholesky_psd(&s);
        assert!(!ok);
        for r in 0..3 {
            for c in 0..3 {
                let x: f64 = (0..3).map(|k| l[r * 3 + k] * l[c * 3 + k]).sum();
                assert!((x - s[r][c]).abs() < 1e-15);
            }
        }
    }
}
