// lsm_exercise (see kernel.toml): Longstaff-Schwartz exercise decision at exercise date `step`;
// cash[p] = h when in the money and h beats the regressed continuation value, else df * cash[p].
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_exercise(const double *spots, double *cash, const double *coef, uint64_t paths, uint32_t step,
                  uint32_t nbasis, double strike, double sign, double df) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    const double *c = coef + static_cast<uint64_t>(step) * nbasis;
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        double s = spots[static_cast<uint64_t>(step) * paths + p];
        double h = sycl::fmax(sign * (s - strike), 0.0);
        if (h > 0.0) {
            double x = s / strike;
            double cont = 0.0;
            for (uint32_t j = 0; j < nbasis; ++j) cont += c[j] * tenor_laguerre(j, x);
            if (h > cont) {
                cash[p] = h;
                continue;
            }
        }
        cash[p] *= df;
    }
}
