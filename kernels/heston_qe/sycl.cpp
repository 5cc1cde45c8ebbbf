// heston_qe (see kernel.toml): Heston terminal spots by Andersen's (2008) quadratic-exponential
// scheme with martingale correction, the same operations as kernels/heston_qe/cpu.rs.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void heston_qe(double *out, uint64_t seed, uint64_t paths, uint32_t steps, double spot, double drift_dt, double dt,
               double v0, double kappa, double theta, double sigma, double rho) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    double e = sycl::exp(-kappa * dt);
    double s2a = sigma * sigma * e * (1.0 - e) / kappa;
    double s2b = theta * sigma * sigma * (1.0 - e) * (1.0 - e) / (2.0 * kappa);
    double k1 = 0.5 * dt * (kappa * rho / sigma - 0.5) - rho / sigma;
    double k2 = 0.5 * dt * (kappa * rho / sigma - 0.5) + rho / sigma;
    double k3 = 0.5 * dt * (1.0 - rho * rho);
    double k4 = k3;
    double a_coef = k2 + 0.5 * k4;
    double k0_plain = -rho * kappa * theta * dt / sigma;
    double x0 = sycl::log(spot);
    uint32_t key0 = static_cast<uint32_t>(seed), key1 = static_cast<uint32_t>(seed >> 32);
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        double v = v0, x = x0;
        for (uint32_t s = 0; s < steps; ++s) {
            double m = theta + (v - theta) * e;
            double s2 = v * s2a + s2b;
            double psi = s2 / (m * m);
            double zx, zv;
            tenor::normal_pair_f64(seed, p, s, zx, zv);
            double vn, k0;
            if (psi <= 1.5) {
                double r = 2.0 / psi;
                double b2 = r - 1.0 + sycl::sqrt(r) * sycl::sqrt(r - 1.0);
                double a = m / (1.0 + b2);
                double q = sycl::sqrt(b2) + zv;
                vn = a * (q * q);
                k0 = 2.0 * a_coef * a < 1.0 ? -a_coef * b2 * a / (1.0 - 2.0 * a_coef * a) +
                                                  0.5 * sycl::log(1.0 - 2.0 * a_coef * a) - (k1 + 0.5 * k3) * v
                                            : k0_plain;
            } else {
                double p0 = (psi - 1.0) / (psi + 1.0);
                double beta = (1.0 - p0) / m;
                // Counter word 1 = 1: disjoint from the normals' counters (word 1 = 0).
                tenor::u32x4 c = {{s, 1u, static_cast<uint32_t>(p), static_cast<uint32_t>(p >> 32)}};
                tenor::u32x4 w = tenor::philox4x32_10(c, key0, key1);
                double u = tenor::uniform_f64(w.v[0], w.v[1]);
                vn = u <= p0 ? 0.0 : sycl::log((1.0 - p0) / (1.0 - u)) / beta;
                k0 = a_coef < beta ? -sycl::log(p0 + beta * (1.0 - p0) / (beta - a_coef)) - (k1 + 0.5 * k3) * v
                                   : k0_plain;
            }
            x += drift_dt + k0 + k1 * v + k2 * vn + sycl::sqrt(k3 * v + k4 * vn) * zx;
            v = vn;
        }
        out[p] = sycl::exp(x);
    }
}
