// reduce_sum_sumsq (see kernel.toml): per-block sum and sum of squares; one work-group per block.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void reduce_sum_sumsq(const double *x, double *partials, uint64_t n) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, n);
    double s = 0.0, q = 0.0;
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        double v = x[i];
        s += v;
        q += v * v;
    }
    s = tenor::group_sum(it, s);
    q = tenor::group_sum(it, q);
    if (it.get_local_id(0) == 0) {
        partials[2 * it.get_group(0)] = s;
        partials[2 * it.get_group(0) + 1] = q;
    }
}
