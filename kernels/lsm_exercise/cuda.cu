// Longstaff-Schwartz exercise decision at exercise date `step` (see kernel.toml): an in-the-money
// path exercises when its payoff h exceeds the regressed continuation value (cash[p] = h);
// otherwise its cash flow is discounted one date back (cash[p] *= df).
extern "C" __global__ void lsm_exercise(const double* __restrict__ spots, double* __restrict__ cash,
                                        const double* __restrict__ coef, u64 paths, u32 step, u32 nbasis,
                                        double strike, double sign, double df) {
    const double* c = coef + (u64)step * nbasis;
    TENOR_FOR_ITEMS(p, paths) {
        const double s = spots[(u64)step * paths + p];
        const double h = fmax(sign * (s - strike), 0.0);
        if (h > 0.0) {
            const double x = s / strike;
            double cont = 0.0;
            for (u32 j = 0; j < nbasis; ++j) cont += c[j] * tenor_laguerre(j, x);
            if (h > cont) {
                cash[p] = h;
                continue;
            }
        }
        cash[p] *= df;
    }
}
