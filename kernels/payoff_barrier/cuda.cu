// Discounted barrier value of each path (see kernel.toml): the shared code's tenor_payoff_barrier.
extern "C" __global__ void payoff_barrier(const double* __restrict__ paths_in, double* __restrict__ out, u64 paths,
                                          u32 steps, double spot, double strike, double barrier, double rebate,
                                          u32 is_call, u32 kind, u32 continuous, double vol_sqrt_dt, double rate_dt,
                                          double discount) {
    tenor_payoff_barrier(paths_in, out, paths, steps, spot, strike, barrier, rebate, is_call, kind, continuous,
                         vol_sqrt_dt, rate_dt, discount);
}
