// lsm_basis (see kernel.toml): Longstaff-Schwartz regression rows at exercise date `step`,
// Laguerre polynomials of S / strike for in-the-money paths and the discounted cash flow.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_basis(const double *spots, const double *cash, double *design, uint64_t paths, uint32_t step,
               uint32_t nbasis, double strike, double sign, double df) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        double s = spots[static_cast<uint64_t>(step) * paths + p];
        double h = sycl::fmax(sign * (s - strike), 0.0);
        double x = s / strike;
        bool itm = h > 0.0;
        for (uint32_t j = 0; j < nbasis; ++j)
            design[static_cast<uint64_t>(j) * paths + p] = itm ? tenor_laguerre(j, x) : 0.0;
        design[static_cast<uint64_t>(nbasis) * paths + p] = itm ? df * cash[p] : 0.0;
    }
}
