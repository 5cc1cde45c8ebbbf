// Arithmetic- and geometric-average fixed-strike payoffs of each path (see kernel.toml).
extern "C" __global__ void payoff_asian(const double* __restrict__ paths_in, double* __restrict__ out_arith,
                                        double* __restrict__ out_geo, u64 paths, u32 steps, double spot,
                                        u32 spot_fixing, double strike, u32 is_call, double discount) {
    const u64 p = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x;
    if (p >= paths) return;
    const double w = is_call != 0u ? 1.0 : -1.0;
    const double n = (double)(steps + (spot_fixing != 0u ? 1u : 0u));
    double sum = 0.0, sum_log = 0.0;
    if (spot_fixing != 0u) { sum = spot; sum_log = log(spot); }
    for (u32 k = 0; k < steps; ++k) {
        const double s = paths_in[(u64)k * paths + p];
        sum += s;
        sum_log += log(s);
    }
    const double a = sum / n, g = exp(sum_log / n);
    out_arith[p] = discount * fmax(w * (a - strike), 0.0);
    out_geo[p] = discount * fmax(w * (g - strike), 0.0);
}
