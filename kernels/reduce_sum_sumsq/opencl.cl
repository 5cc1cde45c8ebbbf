// reduce_sum_sumsq (see kernel.toml): block sums of x and x^2, the shared code's
// tenor_reduce_sum_sumsq.
__kernel void reduce_sum_sumsq(__global const double* restrict x, __global double* restrict partials, ulong n) {
    TENOR_KERNEL_SCRATCH;
    tenor_reduce_sum_sumsq(x, partials, n TENOR_SCRATCH_ARG);
}
