// reduce_sum_sumsq (see kernel.toml): per-block sum and sum of squares, one work-group per block,
// by the shared code's tenor_reduce_sum_sumsq.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void reduce_sum_sumsq(const double *x, double *partials, uint64_t n) { tenor_reduce_sum_sumsq(x, partials, n); }
