// lsm_paths (see kernel.toml): antithetic step-major GBM paths for Longstaff-Schwartz; path
// p >= paths / 2 takes the negated normals of path p - paths / 2.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void lsm_paths(double *out, uint64_t seed, uint64_t paths, uint32_t steps, double spot, double drift_dt,
               double vol_sqrt_dt) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, paths);
    uint64_t half = paths / 2;
    double x0 = sycl::log(spot);
    for (uint64_t p = tenor::block_first(it); p < end; p += it.get_local_range(0)) {
        bool up = p < half;
        uint64_t source = up ? p : p - half;
        double v = vol_sqrt_dt * (up ? 1.0 : -1.0);
        double x = x0;
        for (uint32_t s = 0; s < steps; s += 2) {
            double z[2];
            tenor::normal_pair_f64(seed, source, s >> 1, z[0], z[1]);
            for (uint32_t j = 0; j < 2; ++j) {
                uint32_t k = s + j;
                if (k >= steps) break;
                x += drift_dt + v * z[j];
                out[static_cast<uint64_t>(k) * paths + p] = sycl::exp(x);
            }
        }
    }
}
