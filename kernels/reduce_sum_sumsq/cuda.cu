// reduce_sum_sumsq (see kernel.toml): the shared code's tenor_reduce_sum_sumsq.
extern "C" __global__ void reduce_sum_sumsq(const double* __restrict__ x, double* __restrict__ partials, u64 n) {
    tenor_reduce_sum_sumsq(x, partials, n);
}
