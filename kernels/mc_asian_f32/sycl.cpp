// mc_asian_f32 (see kernel.toml): mc_asian in fp32 with Philox quads, five fp64 block sums, by
// the shared code's tenor_mc_asian_f32.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_asian_f32(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, float spot, float strike,
                  uint32_t is_call, uint32_t spot_fixing, float drift_first, float vol_first, float drift_dt,
                  float vol_sqrt_dt, float discount) {
    tenor_mc_asian_f32(partials, seed, pairs, steps, spot, strike, is_call, spot_fixing, drift_first, vol_first,
                          drift_dt, vol_sqrt_dt, discount);
}
