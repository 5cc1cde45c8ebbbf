// gbm_paths (see kernel.toml): log-space GBM paths, step-major, first interval separate.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void gbm_paths(double *out, uint64_t seed, uint64_t paths, uint32_t steps, double spot, double drift_first,
               double vol_first, double drift_dt, double vol_sqrt_dt) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    double x0 = sycl::log(spot);
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        double x = x0;
        for (uint32_t s = 0; s < steps; s += 2) {
            double z[2];
            tenor::normal_pair_f64(seed, p, s >> 1, z[0], z[1]);
            for (uint32_t j = 0; j < 2; ++j) {
                uint32_t k = s + j;
                if (k >= steps) break;
                x += k == 0 ? drift_first + vol_first * z[j] : drift_dt + vol_sqrt_dt * z[j];
                out[static_cast<uint64_t>(k) * paths + p] = sycl::exp(x);
            }
        }
    }
}
