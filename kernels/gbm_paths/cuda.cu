// Step-major GBM paths in log space (see kernel.toml): out[s * paths + p] = exp(x_{s+1}).
extern "C" __global__ void gbm_paths(double* __restrict__ out, u64 seed, u64 paths, u32 steps, double spot,
                                     double drift_first, double vol_first, double drift_dt, double vol_sqrt_dt) {
    const u64 p = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x;
    if (p >= paths) return;
    double x = log(spot);
    for (u32 s = 0; s < steps; s += 2) {
        double z0, z1;
        tenor_normal_pair_f64(seed, p, s >> 1, &z0, &z1);
        x += (s == 0) ? drift_first + vol_first * z0 : drift_dt + vol_sqrt_dt * z0;
        out[(u64)s * paths + p] = exp(x);
        if (s + 1 < steps) {
            x += drift_dt + vol_sqrt_dt * z1;
            out[(u64)(s + 1) * paths + p] = exp(x);
        }
    }
}
