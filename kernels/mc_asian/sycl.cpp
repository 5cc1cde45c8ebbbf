// mc_asian (see kernel.toml): fused antithetic average-price Asian Monte Carlo, five block sums.
namespace {
struct AsianPair {
    double xu, xd, su, sd, lu, ld;
    void step(double d, double vz) {
        xu += d + vz;
        xd += d - vz;
        lu += xu;
        ld += xd;
        su += sycl::exp(xu);
        sd += sycl::exp(xd);
    }
};
}  // namespace

extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_asian(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, double spot, double strike,
              uint32_t is_call, uint32_t spot_fixing, double drift_first, double vol_first, double drift_dt,
              double vol_sqrt_dt, double discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, pairs);
    double w = is_call != 0u ? 1.0 : -1.0;
    double x0 = sycl::log(spot);
    double inv_n = 1.0 / static_cast<double>(steps + (spot_fixing != 0u ? 1u : 0u));
    double s0 = spot_fixing != 0u ? spot : 0.0, l0 = spot_fixing != 0u ? x0 : 0.0;
    double half_discount = 0.5 * discount;
    double acc[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        AsianPair p{x0, x0, s0, s0, l0, l0};
        for (uint32_t k = 0; k < steps; k += 2) {
            double z0, z1;
            tenor::normal_pair_f64(seed, i, k >> 1, z0, z1);
            if (k == 0)
                p.step(drift_first, vol_first * z0);
            else
                p.step(drift_dt, vol_sqrt_dt * z0);
            if (k + 1 < steps) p.step(drift_dt, vol_sqrt_dt * z1);
        }
        double a = half_discount * (sycl::fmax(w * (p.su * inv_n - strike), 0.0) +
                                    sycl::fmax(w * (p.sd * inv_n - strike), 0.0));
        double g = half_discount * (sycl::fmax(w * (sycl::exp(p.lu * inv_n) - strike), 0.0) +
                                    sycl::fmax(w * (sycl::exp(p.ld * inv_n) - strike), 0.0));
        acc[0] += a;
        acc[1] += a * a;
        acc[2] += g;
        acc[3] += g * g;
        acc[4] += a * g;
    }
    for (int j = 0; j < 5; ++j) {
        double t = tenor::group_sum(it, acc[j]);
        if (it.get_local_id(0) == 0) partials[5 * it.get_group(0) + j] = t;
    }
}
