// out[p] = discount * max(w (S_T - strike), 0), S_T = paths_in[(steps - 1) * paths + p].
extern "C" __global__ void payoff_european(const double* __restrict__ paths_in, double* __restrict__ out, u64 paths,
                                           u32 steps, double strike, u32 is_call, double discount) {
    const u64 p = (u64)blockIdx.x * TENOR_BLOCK + threadIdx.x;
    if (p >= paths) return;
    const double w = is_call != 0u ? 1.0 : -1.0;
    const u64 last = (u64)(steps > 0u ? steps - 1u : 0u) * paths;
    out[p] = discount * fmax(w * (paths_in[last + p] - strike), 0.0);
}
