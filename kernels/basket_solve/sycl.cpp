// basket_solve (see kernel.toml): one date's regression of the basket, the shared code's
// tenor_basket_solve (kernels/common/basket.h).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void basket_solve(double *coef, const double *partials, uint64_t nblocks, uint32_t steps, uint32_t step,
                  uint32_t nbasis) {
    tenor_basket_solve(coef, partials, nblocks, steps, step, nbasis);
}
