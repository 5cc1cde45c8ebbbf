// Black implied volatility (see kernel.toml): each thread's items computed by the shared code's
// tenor_implied_vol_item (kernels/common/shared.h, which gives the method and status codes).
extern "C" __global__ void implied_vol(const double* __restrict__ price, const double* __restrict__ forward,
                                       const double* __restrict__ strike, const double* __restrict__ maturity,
                                       const double* __restrict__ discount, const u32* __restrict__ is_call,
                                       double* __restrict__ vol, u32* __restrict__ status, u64 n) {
    TENOR_FOR_ITEMS(i, n) {
        tenor_implied_vol_item(i, price, forward, strike, maturity, discount, is_call, vol, status);
    }
}
