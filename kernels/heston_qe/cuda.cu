// Heston terminal spots by Andersen's (2008) quadratic-exponential scheme with martingale
// correction (see kernel.toml; the same operations as kernels/heston_qe/cpu.rs): "Simple and
// efficient simulation of the Heston stochastic volatility model", J. Comp. Finance 11(3),
// sections 3.2.4, 4.2 and 4.2.1.
extern "C" __global__ void heston_qe(double* __restrict__ out, u64 seed, u64 paths, u32 steps, double spot,
                                     double drift_dt, double dt, double v0, double kappa, double theta,
                                     double sigma, double rho) {
    const double e = exp(-kappa * dt);
    const double s2a = sigma * sigma * e * (1.0 - e) / kappa;
    const double s2b = theta * sigma * sigma * (1.0 - e) * (1.0 - e) / (2.0 * kappa);
    const double k1 = 0.5 * dt * (kappa * rho / sigma - 0.5) - rho / sigma;
    const double k2 = 0.5 * dt * (kappa * rho / sigma - 0.5) + rho / sigma;
    const double k3 = 0.5 * dt * (1.0 - rho * rho);
    const double k4 = k3;
    const double a_coef = k2 + 0.5 * k4;
    const double k0_plain = -rho * kappa * theta * dt / sigma;
    const double x0 = log(spot);
    const u32 key0 = (u32)seed, key1 = (u32)(seed >> 32);
    TENOR_FOR_ITEMS(p, paths) {
        double v = v0, x = x0;
        for (u32 s = 0; s < steps; ++s) {
            const double m = theta + (v - theta) * e;
            const double s2 = v * s2a + s2b;
            const double psi = s2 / (m * m);
            double zx, zv;
            tenor_normal_pair_f64(seed, p, s, &zx, &zv);
            double vn, k0;
            if (psi <= 1.5) {
                const double r = 2.0 / psi;
                const double b2 = r - 1.0 + sqrt(r) * sqrt(r - 1.0);
                const double a = m / (1.0 + b2);
                const double q = sqrt(b2) + zv;
                vn = a * (q * q);
                k0 = 2.0 * a_coef * a < 1.0 ? -a_coef * b2 * a / (1.0 - 2.0 * a_coef * a) +
                                                  0.5 * log(1.0 - 2.0 * a_coef * a) - (k1 + 0.5 * k3) * v
                                            : k0_plain;
            } else {
                const double p0 = (psi - 1.0) / (psi + 1.0);
                const double beta = (1.0 - p0) / m;
                // Counter word 1 = 1: disjoint from the normals' counters (word 1 = 0).
                tenor_u32x4 c;
                c.x = s; c.y = 1u; c.z = (u32)p; c.w = (u32)(p >> 32);
                const tenor_u32x4 w = tenor_philox4x32_10(c, key0, key1);
                const double u = tenor_uniform_f64(w.x, w.y);
                vn = u <= p0 ? 0.0 : log((1.0 - p0) / (1.0 - u)) / beta;
                k0 = a_coef < beta ? -log(p0 + beta * (1.0 - p0) / (beta - a_coef)) - (k1 + 0.5 * k3) * v : k0_plain;
            }
            x += drift_dt + k0 + k1 * v + k2 * vn + sqrt(k3 * v + k4 * vn) * zx;
            v = vn;
        }
        out[p] = exp(x);
    }
}
