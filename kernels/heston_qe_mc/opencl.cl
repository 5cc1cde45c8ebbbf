// heston_qe_mc (see kernel.toml): fused antithetic Heston QE Monte Carlo of a European option,
// the shared code's tenor_heston_qe_mc.
__kernel void heston_qe_mc(__global double* restrict partials, ulong seed, ulong pairs, uint steps, double spot,
                           double strike, uint is_call, double drift_dt, double dt, double v0, double kappa,
                           double theta, double sigma, double rho, double discount) {
    TENOR_KERNEL_SCRATCH;
    tenor_heston_qe_mc(partials, seed, pairs, steps, spot, strike, is_call, drift_dt, dt, v0, kappa, theta, sigma, rho,
                       discount TENOR_SCRATCH_ARG);
}
