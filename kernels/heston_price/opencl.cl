// heston_price (see kernel.toml): one Lewis-integral Heston price per item, the shared code's
// tenor_heston_price_item.
__kernel void heston_price(__global const double* restrict strike, __global const double* restrict forward,
                           __global const double* restrict maturity, __global const double* restrict discount,
                           __global const uint* restrict is_call, __global const double* restrict params,
                           __global const double* restrict nodes, __global const double* restrict weights,
                           __global double* restrict price, ulong items, ulong quotes, uint nodes_count) {
    if (quotes == 0) return;
    TENOR_FOR_ITEMS(i, items) {
        price[i] = tenor_heston_price_item(i, quotes, strike, forward, maturity, discount, is_call, params, nodes,
                                           weights, nodes_count);
    }
}
