// basket_value (see kernel.toml): the basket's price, deltas, gammas, cross gammas and rho per
// path, the shared code's tenor_basket_value (kernels/common/basket.h).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void basket_value(double *contrib, const double *assets, const double *factor, const double *coef, uint64_t seed,
                  uint32_t set, uint64_t paths, uint32_t steps, uint32_t nassets, uint32_t nbasis, uint32_t rows,
                  double strike, double sign, double rate, double dt, double bump) {
    tenor_basket_value(contrib, assets, factor, coef, seed, set, paths, steps, nassets, nbasis, rows, strike, sign,
                       rate, dt, bump);
}
