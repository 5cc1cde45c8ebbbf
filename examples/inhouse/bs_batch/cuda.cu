// bs_batch for CUDA (see kernel.toml). The CUDA adapter defines TENOR_BLOCK (items per block,
// from the manifest) and TENOR_THREADS (threads per block) and launches ceil(n / TENOR_BLOCK)
// blocks; each block covers its TENOR_BLOCK items.
extern "C" __global__ void bs_batch(const double* __restrict__ spot, const double* __restrict__ strike,
                                    const double* __restrict__ vol, const double* __restrict__ maturity,
                                    double* __restrict__ price, double rate, double dividend, unsigned long long n) {
    const unsigned long long first = (unsigned long long)blockIdx.x * TENOR_BLOCK;
    const unsigned long long last = min(n, first + TENOR_BLOCK);
    for (unsigned long long i = first + threadIdx.x; i < last; i += TENOR_THREADS) {
        const double s = spot[i], k = strike[i], v = vol[i], t = maturity[i];
        const double sq = v * sqrt(t);
        const double d1 = (log(s / k) + (rate - dividend + 0.5 * v * v) * t) / sq;
        const double d2 = d1 - sq;
        price[i] = s * exp(-dividend * t) * 0.5 * erfc(-d1 * 0.70710678118654752440) - k * exp(-rate * t) * 0.5 * erfc(-d2 * 0.70710678118654752440);
    }
}
