// payoff_asian (see kernel.toml): the shared code's tenor_payoff_asian.
__kernel void payoff_asian(__global const double* restrict paths_in, __global double* restrict out_arith,
                           __global double* restrict out_geo, ulong paths, uint steps, double spot, uint spot_fixing,
                           double strike, uint is_call, double discount) {
    tenor_payoff_asian(paths_in, out_arith, out_geo, paths, steps, spot, spot_fixing, strike, is_call, discount);
}
