// heston_qe (see kernel.toml): Andersen's QE scheme, the shared code's tenor_heston_qe.
__kernel void heston_qe(__global double* restrict out, ulong seed, ulong paths, uint steps, double spot,
                        double drift_dt, double dt, double v0, double kappa, double theta, double sigma, double rho) {
    tenor_heston_qe(out, seed, paths, steps, spot, drift_dt, dt, v0, kappa, theta, sigma, rho);
}
