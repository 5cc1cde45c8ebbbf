// bs_batch for SYCL (see kernel.toml): a free-function kernel compiled at run time by the
// kernel_compiler extension; one work-group per manifest block, its items strided by the
// work-group size (the adapter's prelude gives tenor::item, block_first, block_end).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void bs_batch(const double *spot, const double *strike, const double *vol, const double *maturity, double *price,
              double rate, double dividend, uint64_t n) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, n);
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        double s = spot[i], k = strike[i], v = vol[i], t = maturity[i];
        double sq = v * sycl::sqrt(t);
        double d1 = (sycl::log(s / k) + (rate - dividend + 0.5 * v * v) * t) / sq;
        double d2 = d1 - sq;
        price[i] = s * sycl::exp(-dividend * t) * 0.5 * sycl::erfc(-d1 * 0.70710678118654752440) -
                   k * sycl::exp(-rate * t) * 0.5 * sycl::erfc(-d2 * 0.70710678118654752440);
    }
}
