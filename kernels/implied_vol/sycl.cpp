// implied_vol (see kernel.toml): each work-item's items computed by the shared code's
// tenor_implied_vol_item (kernels/common/shared.h, which gives the method and status codes).
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void implied_vol(const double *price, const double *forward, const double *strike, const double *maturity,
                 const double *discount, const uint32_t *is_call, double *vol, uint32_t *status, uint64_t n) {
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, n);
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        tenor_implied_vol_item(i, price, forward, strike, maturity, discount, is_call, vol, status);
    }
}
