// Arithmetic- and geometric-average fixed-strike payoffs of each path (see kernel.toml): the
// shared code's tenor_payoff_asian.
extern "C" __global__ void payoff_asian(const double* __restrict__ paths_in, double* __restrict__ out_arith,
                                        double* __restrict__ out_geo, u64 paths, u32 steps, double spot,
                                        u32 spot_fixing, double strike, u32 is_call, double discount) {
    tenor_payoff_asian(paths_in, out_arith, out_geo, paths, steps, spot, spot_fixing, strike, is_call, discount);
}
