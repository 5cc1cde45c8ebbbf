// Antithetic step-major GBM paths for Longstaff-Schwartz (see kernel.toml): path p < paths / 2
// uses normal_f64(seed, p, s), path p >= paths / 2 the negated normals of path p - paths / 2.
extern "C" __global__ void lsm_paths(double* __restrict__ out, u64 seed, u64 paths, u32 steps, double spot,
                                     double drift_dt, double vol_sqrt_dt) {
    const u64 half = paths / 2;
    const double x0 = log(spot);
    TENOR_FOR_ITEMS(p, paths) {
        const bool up = p < half;
        const u64 source = up ? p : p - half;
        const double v = vol_sqrt_dt * (up ? 1.0 : -1.0);
        double x = x0;
        for (u32 s = 0; s < steps; s += 2) {
            double z0, z1;
            tenor_normal_pair_f64(seed, source, s >> 1, &z0, &z1);
            x += drift_dt + v * z0;
            out[(u64)s * paths + p] = exp(x);
            if (s + 1 < steps) {
                x += drift_dt + v * z1;
                out[(u64)(s + 1) * paths + p] = exp(x);
            }
        }
    }
}
