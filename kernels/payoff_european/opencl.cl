// payoff_european (see kernel.toml): the shared code's tenor_payoff_european.
__kernel void payoff_european(__global const double* restrict paths_in, __global double* restrict out, ulong paths,
                              uint steps, double strike, uint is_call, double discount) {
    tenor_payoff_european(paths_in, out, paths, steps, strike, is_call, discount);
}
