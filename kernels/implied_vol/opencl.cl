// implied_vol (see kernel.toml): Black implied volatility per item, the shared code's
// tenor_implied_vol_item.
__kernel void implied_vol(__global const double* restrict price, __global const double* restrict forward,
                          __global const double* restrict strike, __global const double* restrict maturity,
                          __global const double* restrict discount, __global const uint* restrict is_call,
                          __global double* restrict vol, __global uint* restrict status, ulong n) {
    TENOR_FOR_ITEMS(i, n) tenor_implied_vol_item(i, price, forward, strike, maturity, discount, is_call, vol, status);
}
