// basket_sens (see kernel.toml): the basket's vegas, model vegas, correlation vegas and theta
// per path, the shared code's tenor_basket_sens (kernels/common/basket.h).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void basket_sens(double *contrib, const double *assets, const double *bumped, const double *factor,
                 const double *dfactor, const double *coef, uint64_t seed, uint32_t set, uint64_t paths, uint32_t steps,
                 uint32_t nassets, uint32_t nbasis, uint32_t rows, double strike, double sign, double rate, double dt,
                 double maturity_bump) {
    tenor_basket_sens(contrib, assets, bumped, factor, dfactor, coef, seed, set, paths, steps, nassets, nbasis, rows,
                      strike, sign, rate, dt, maturity_bump);
}
