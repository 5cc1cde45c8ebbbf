// heston_price (see kernel.toml): European prices under Heston, one thread per item (parameter
// set, quote). The pricing (Lewis integral, Black-Scholes control variate, little Heston trap,
// Gauss-Legendre quadrature) is kernels/common/shared.h's tenor_heston_price_item, shared with
// sycl.cpp; it follows kernels/src/heston.rs operation by operation.
extern "C" __global__ void heston_price(const double* __restrict__ strike, const double* __restrict__ forward,
                                        const double* __restrict__ maturity, const double* __restrict__ discount,
                                        const u32* __restrict__ is_call, const double* __restrict__ params,
                                        const double* __restrict__ nodes, const double* __restrict__ weights,
                                        double* __restrict__ price, u64 items, u64 quotes, u32 nodes_count) {
    if (quotes == 0) return;
    TENOR_FOR_ITEMS(i, items) {
        price[i] = tenor_heston_price_item(i, quotes, strike, forward, maturity, discount, is_call, params, nodes,
                                           weights, nodes_count);
    }
}
