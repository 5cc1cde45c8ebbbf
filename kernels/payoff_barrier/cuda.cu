// Discounted barrier value of each path (see kernel.toml and the shared code's tenor_barrier_*).
extern "C" __global__ void payoff_barrier(const double* __restrict__ paths_in, double* __restrict__ out, u64 paths,
                                          u32 steps, double spot, double strike, double barrier, double rebate,
                                          u32 is_call, u32 kind, u32 continuous, double vol_sqrt_dt, double rate_dt,
                                          double discount) {
    const u64 p = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x;
    if (p >= paths) return;
    const tenor_barrier_params prm =
        tenor_barrier_make(strike, barrier, rebate, is_call, kind, continuous, vol_sqrt_dt, rate_dt, discount);
    tenor_barrier_path path = tenor_barrier_start(log(spot));
    for (u32 k = 0; k < steps; ++k) tenor_barrier_step(prm, path, k, log(paths_in[(u64)k * paths + p]));
    out[p] = tenor_barrier_value(prm, path);
}
