// payoff_barrier (see kernel.toml): the shared code's tenor_payoff_barrier.
__kernel void payoff_barrier(__global const double* restrict paths_in, __global double* restrict out, ulong paths,
                             uint steps, double spot, double strike, double barrier, double rebate, uint is_call,
                             uint kind, uint continuous, double vol_sqrt_dt, double rate_dt, double discount) {
    tenor_payoff_barrier(paths_in, out, paths, steps, spot, strike, barrier, rebate, is_call, kind, continuous,
                         vol_sqrt_dt, rate_dt, discount);
}
