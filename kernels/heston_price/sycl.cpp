// heston_price (see kernel.toml): European prices under Heston, one work-item per item
// (parameter set, quote). The pricing (Lewis integral, Black-Scholes control variate, little
// Heston trap, Gauss-Legendre quadrature) is kernels/common/shared.h's tenor_heston_price_item,
// shared with cuda.cu; it follows kernels/src/heston.rs operation by operation.
extern "C" SYCL_EXT_ONEAPI_FUNCTION_PROPERTY((syclexp::nd_range_kernel<1>))
void heston_price(const double *strike, const double *forward, const double *maturity, const double *discount,
                  const uint32_t *is_call, const double *params, const double *nodes, const double *weights,
                  double *price, uint64_t items, uint64_t quotes, uint32_t nodes_count) {
    if (quotes == 0) return;
    sycl::nd_item<1> it = tenor::item();
    uint64_t end = tenor::block_end(it, items);
    for (uint64_t i = tenor::block_first(it); i < end; i += it.get_local_range(0)) {
        price[i] = tenor_heston_price_item(i, quotes, strike, forward, maturity, discount, is_call, params, nodes,
                                           weights, nodes_count);
    }
}
