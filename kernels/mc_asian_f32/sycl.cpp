// mc_asian_f32 (see kernel.toml): mc_asian in fp32 with Philox quads, five fp64 block sums.
namespace {
struct AsianPairF32 {
    float xu, xd, su, sd, lu, ld;
    void step(float d, float vz) {
        xu += d + vz;
        xd += d - vz;
        lu += xu;
        ld += xd;
        su += sycl::exp(xu);
        sd += sycl::exp(xd);
    }
};
}  // namespace

extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_asian_f32(double *partials, uint64_t seed, uint64_t pairs, uint32_t steps, float spot, float strike,
                  uint32_t is_call, uint32_t spot_fixing, float drift_first, float vol_first, float drift_dt,
                  float vol_sqrt_dt, float discount) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, pairs);
    float w = is_call != 0u ? 1.0f : -1.0f;
    float x0 = sycl::log(spot);
    float inv_n = 1.0f / static_cast<float>(steps + (spot_fixing != 0u ? 1u : 0u));
    float s0 = spot_fixing != 0u ? spot : 0.0f, l0 = spot_fixing != 0u ? x0 : 0.0f;
    float half_discount = 0.5f * discount;
    double acc[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        AsianPairF32 p{x0, x0, s0, s0, l0, l0};
        for (uint32_t k = 0; k < steps; k += 4) {
            float z[4];
            tenor::normal_quad_f32(seed, i, k >> 2, z);
            for (uint32_t j = 0; j < 4; ++j) {
                uint32_t kj = k + j;
                if (kj >= steps) break;
                if (kj == 0)
                    p.step(drift_first, vol_first * z[j]);
                else
                    p.step(drift_dt, vol_sqrt_dt * z[j]);
            }
        }
        double a = static_cast<double>(half_discount * (sycl::fmax(w * (p.su * inv_n - strike), 0.0f) +
                                                        sycl::fmax(w * (p.sd * inv_n - strike), 0.0f)));
        double g = static_cast<double>(half_discount * (sycl::fmax(w * (sycl::exp(p.lu * inv_n) - strike), 0.0f) +
                                                        sycl::fmax(w * (sycl::exp(p.ld * inv_n) - strike), 0.0f)));
        acc[0] += a;
        acc[1] += a * a;
        acc[2] += g;
        acc[3] += g * g;
        acc[4] += a * g;
    }
    for (int j = 0; j < 5; ++j) {
        double t = tenor::group_sum(it, acc[j]);
        if (it.get_local_id(0) == 0) partials[5 * it.get_group(0) + j] = t;
    }
}
