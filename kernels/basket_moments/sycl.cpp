// basket_moments (see kernel.toml): chunked sums and sums of squares of per-path values in path
// order, the shared code's tenor_basket_moments (kernels/common/basket.h).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void basket_moments(double *out, const double *values, uint32_t rows, uint64_t paths, uint64_t chunk,
                    uint64_t items) {
    tenor_basket_moments(out, values, rows, paths, chunk, items);
}
