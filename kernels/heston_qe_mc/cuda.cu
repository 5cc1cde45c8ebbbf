// heston_qe_mc (see kernel.toml): fused antithetic Heston QE Monte Carlo of a European option,
// the shared code's tenor_heston_qe_mc. partials[2b], partials[2b + 1] = block sums of Y, Y^2.
extern "C" __global__ void __launch_bounds__(TENOR_THREADS)
    heston_qe_mc(double* __restrict__ partials, u64 seed, u64 pairs, u32 steps, double spot, double strike,
                 u32 is_call, double drift_dt, double dt, double v0, double kappa, double theta, double sigma,
                 double rho, double discount) {
    tenor_heston_qe_mc(partials, seed, pairs, steps, spot, strike, is_call, drift_dt, dt, v0, kappa, theta, sigma, rho,
                       discount);
}
