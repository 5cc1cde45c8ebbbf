// Discounted European payoff of each path's last value (see kernel.toml): the shared code's
// tenor_payoff_european.
extern "C" __global__ void payoff_european(const double* __restrict__ paths_in, double* __restrict__ out, u64 paths,
                                           u32 steps, double strike, u32 is_call, double discount) {
    tenor_payoff_european(paths_in, out, paths, steps, strike, is_call, discount);
}
