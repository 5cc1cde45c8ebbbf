// partials[2b] = sum of x over block b's items, partials[2b + 1] = sum of x^2.
extern "C" __global__ void reduce_sum_sumsq(const double* __restrict__ x, double* __restrict__ partials, u64 n) {
    double v[2] = {0.0, 0.0};
    TENOR_FOR_ITEMS(i, n) {
        const double a = x[i];
        v[0] += a;
        v[1] += a * a;
    }
    tenor_block_sum<2>(v);
    if (threadIdx.x == 0) {
        partials[2 * (u64)blockIdx.x] = v[0];
        partials[2 * (u64)blockIdx.x + 1] = v[1];
    }
}
