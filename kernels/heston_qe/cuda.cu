// Heston terminal spots by Andersen's (2008) quadratic-exponential scheme with martingale
// correction (see kernel.toml): the shared code's tenor_heston_qe.
extern "C" __global__ void heston_qe(double* __restrict__ out, u64 seed, u64 paths, u32 steps, double spot,
                                     double drift_dt, double dt, double v0, double kappa, double theta,
                                     double sigma, double rho) {
    tenor_heston_qe(out, seed, paths, steps, spot, drift_dt, dt, v0, kappa, theta, sigma, rho);
}
