// mc_european (see kernel.toml): fused antithetic European Monte Carlo, per-block partial sums.
// Pairs 2j and 2j + 1 share Philox call j (its cosine and sine normals): each work-item takes
// the calls of its work-group with a stride of the local range.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void mc_european(double *partials, uint64_t seed, uint64_t pairs, double spot, double strike, uint32_t is_call,
                 double drift, double vol_sqrt_t, double discount) {
    static_assert(TENOR_BLOCK % 2u == 0u, "mc_european: blocks hold whole Philox calls (pairs 2j, 2j + 1)");
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, pairs);
    double w = is_call != 0u ? 1.0 : -1.0;
    double half_discount = 0.5 * discount;
    double sum = 0.0, sum_sq = 0.0;
    uint64_t first = it.get_group(0) * static_cast<uint64_t>(TENOR_BLOCK);
    uint64_t stride = 2 * static_cast<uint64_t>(it.get_local_range(0));
    for (uint64_t p = first + 2 * it.get_local_id(0); p < end; p += stride) {
        double z[2];
        tenor::normal_pair_f64(seed, p >> 1, 0, z[0], z[1]);
        for (int h = 0; h < 2 && p + h < end; ++h) {
            double up = spot * sycl::exp(drift + vol_sqrt_t * z[h]);
            double dn = spot * sycl::exp(drift - vol_sqrt_t * z[h]);
            double y = half_discount * (sycl::fmax(w * (up - strike), 0.0) + sycl::fmax(w * (dn - strike), 0.0));
            sum += y;
            sum_sq += y * y;
        }
    }
    sum = tenor::group_sum(it, sum);
    sum_sq = tenor::group_sum(it, sum_sq);
    if (it.get_local_id(0) == 0) {
        partials[2 * it.get_group(0)] = sum;
        partials[2 * it.get_group(0) + 1] = sum_sq;
    }
}
