// basket_backward (see kernel.toml): one date of the basket's Longstaff-Schwartz backward
// induction, the shared code's tenor_basket_backward (kernels/common/basket.h).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void basket_backward(double *partials, double *cash, const double *basket, const double *feature, const double *coef,
                     uint64_t paths, uint32_t steps, uint32_t step, uint32_t nbasis, double strike, double sign,
                     double df) {
    tenor_basket_backward(partials, cash, basket, feature, coef, paths, steps, step, nbasis, strike, sign, df);
}
