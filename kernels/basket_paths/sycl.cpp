// basket_paths (see kernel.toml): the basket's regression paths, the shared code's
// tenor_basket_paths (kernels/common/basket.h).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void basket_paths(double *basket, double *feature, const double *assets, const double *factor, uint64_t seed,
                  uint32_t set, uint64_t paths, uint32_t steps, uint32_t nassets, double strike) {
    tenor_basket_paths(basket, feature, assets, factor, seed, set, paths, steps, nassets, strike);
}
