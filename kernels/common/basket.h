// The STAC-A2 basket's device code (basket_paths, basket_backward, basket_value, basket_sens,
// basket_moments; see their kernel.toml), written once for CUDA, SYCL and OpenCL C
// in the spellings of shared.h and appended after it by tenor_kernels::prelude. Every function
// performs the operations of core/kernels/src/basket.rs (the CPU references' code) in the same
// order; the backends' exp, log, sqrt, sin, cos and erfc differ from the CPU's in the last ulp,
// and compilers may contract a b + c, so results agree within the conformance tolerances
// (adapters/conformance/src/basket.rs).
//
// Model (core/kernels/src/basket.rs has the whole description): N <= 16 Heston assets under
// Andersen's (2008) QE scheme, the 2N normals of a step correlated by a lower-triangular factor
// (row i < N: the variance normal of asset i, row N + i: its log-price normal), U_v = Phi(z_v)
// in the exponential branch; asset records of 16 doubles (the slots below).
//
// The per-path functions (SYCL, OpenCL: one work-item per path, items past `paths` idle) size
// their arrays for 16 assets and index them by the run-time asset count, so on a GPU they live in
// local memory. CUDA (TENOR_WARP_LANES, prelude.cuh) runs basket_paths, basket_value and
// basket_sens with one lane per asset instead (the section below; ADR 0035): 5 to 32 times the
// threads of one per path, each with one asset's state in registers.

#define TENOR_BASKET_MAX_ASSETS 16u
#define TENOR_BASKET_MAX_FACTORS 32u
#define TENOR_BASKET_RECORD 16u
#define TENOR_BASKET_MAX_BASIS 6u
#define TENOR_BASKET_TANGENTS 5u
#define TENOR_BASKET_FREE 4u
#define TENOR_BASKET_VALUE_ROWS 154u
#define TENOR_BASKET_SENS_ROWS 185u
#define TENOR_BASKET_G 136u

// Record slots (core/kernels/src/basket.rs, mod slot).
#define TENOR_BASKET_X0 0u
#define TENOR_BASKET_V0 1u
#define TENOR_BASKET_WEIGHT 2u
#define TENOR_BASKET_DRIFT_DT 3u
#define TENOR_BASKET_THETA 4u
#define TENOR_BASKET_E 5u
#define TENOR_BASKET_S2A 6u
#define TENOR_BASKET_S2B 7u
#define TENOR_BASKET_K1 8u
#define TENOR_BASKET_K2 9u
#define TENOR_BASKET_K3 10u
#define TENOR_BASKET_A 11u
#define TENOR_BASKET_K0_PLAIN 12u
#define TENOR_BASKET_SPOT 13u

// Factors 2j (*e0) and 2j + 1 (*e1) of `step` of `path` in path set `set`: Philox counter
// (step, set 2^31 + j, path), ADR 0003's Box-Muller.
TENOR_DEVICE_INLINE void tenor_basket_normal_pair(tenor_u64 seed, tenor_u32 set, tenor_u64 path, tenor_u32 step,
                                                  tenor_u32 j, double* e0, double* e1) {
    tenor_u32x4 ctr;
    ctr.x = step; ctr.y = (set << 31) | j; ctr.z = (tenor_u32)path; ctr.w = (tenor_u32)(path >> 32);
    const tenor_u32x4 w = tenor_philox4x32_10(ctr, (tenor_u32)seed, (tenor_u32)(seed >> 32));
    const double u1 = tenor_uniform_f64(w.x, w.y);
    const double u2 = tenor_uniform_f64(w.z, w.w);
    const double r = TENOR_MATH(sqrt)(-2.0 * TENOR_MATH(log)(u1));
    double s, c;
    TENOR_SINCOS((2.0 * 3.141592653589793) * u2, &s, &c);
    *e0 = r * c;
    *e1 = r * s;
}

// The 2N (= factors, even) independent normals of `step` of `path` in path set `set`.
TENOR_DEVICE_INLINE void tenor_basket_normals(tenor_u64 seed, tenor_u32 set, tenor_u64 path, tenor_u32 step,
                                              tenor_u32 factors, double* eps) {
    for (tenor_u32 j = 0; 2u * j < factors; ++j) {
        tenor_basket_normal_pair(seed, set, path, step, j, &eps[2u * j], &eps[2u * j + 1u]);
    }
}

// z = A eps for the lower-triangular row-major factor A (factors x factors).
TENOR_DEVICE_INLINE void tenor_basket_correlate(TENOR_GLOBAL const double* __restrict__ factor, const double* eps,
                                                tenor_u32 factors, double* z) {
    for (tenor_u32 r = 0; r < factors; ++r) {
        double acc = 0.0;
        for (tenor_u32 c = 0; c <= r; ++c) acc += factor[r * factors + c] * eps[c];
        z[r] = acc;
    }
}

// What the tangents of one QE step share (core/kernels/src/basket.rs, QeJet; ADR 0038): the
// step's values and the reciprocals of the chain rule, the fields named as there (quadratic
// branch / exponential branch meanings in its comments).
typedef struct tenor_basket_qe_jet {
    tenor_u32 branch;
    double vc, vn, m, is, r, kb, hb, rd, rup, a, q, b2, pp, hs;
} tenor_basket_qe_jet;

// One QE step of the asset with record c from variance vc (core/kernels/src/basket.rs,
// qe_step_parts, psi never formed: ADR 0037): returns the log-price increment; *vn the next
// variance, *branch_out the branches taken (bit 0 exponential, bit 1 K0 without the martingale
// correction), *sq = sqrt(K3 (vc + vn)). branch is TENOR_BASKET_FREE (choose) or the bits to
// follow. With jet non-null also the step's jet (qe_jet there), for tenor_basket_qe_tangent.
TENOR_DEVICE_INLINE double tenor_basket_qe_step_jet(TENOR_GLOBAL const double* __restrict__ c, double vc, double zv,
                                                    double zx, tenor_u32 branch, double* vn_out,
                                                    tenor_u32* branch_out, double* sq_out, tenor_basket_qe_jet* jet) {
    const double theta = c[TENOR_BASKET_THETA];
    const double m = theta + (vc - theta) * c[TENOR_BASKET_E];
    const double s2 = vc * c[TENOR_BASKET_S2A] + c[TENOR_BASKET_S2B];
    const double mm = m * m;
    const double a_coef = c[TENOR_BASKET_A];
    const double k1 = c[TENOR_BASKET_K1], k3 = c[TENOR_BASKET_K3];
    const bool exponential = branch == TENOR_BASKET_FREE ? s2 > 1.5 * mm : (branch & 1u) != 0u;
    double vn, k0;
    double sg = 0.0, sb = 0.0;  // the quadratic branch's square roots, for the jet below
    bool plain;
    if (!exponential) {
        const double r = 2.0 * mm / s2;
        sg = TENOR_MATH(sqrt)(r * TENOR_MATH(fmax)(r - 1.0, 0.0));
        const double b2 = r - 1.0 + sg;
        const double d = 1.0 + b2;
        sb = TENOR_MATH(sqrt)(b2);
        const double q = sb + zv;
        const double u = d - 2.0 * a_coef * m;
        plain = branch == TENOR_BASKET_FREE ? u <= 0.0 : (branch & 2u) != 0u;
        const double up = plain ? 1.0 : u;
        const double inv = 1.0 / (d * up);
        const double a = m * up * inv;
        vn = a * (q * q);
        k0 = plain ? c[TENOR_BASKET_K0_PLAIN]
                   : -a_coef * b2 * m * d * inv + 0.5 * TENOR_MATH(log)(up * up * inv) - (k1 + 0.5 * k3) * vc;
        if (jet) {  // is, kb, hb once sq is known (below)
            jet->r = r;
            jet->rd = up * inv;
            jet->rup = d * inv;
            jet->a = a;
            jet->q = q;
            jet->b2 = b2;
            jet->pp = a_coef * b2 * m * jet->rup;
        }
    } else {
        const double inv = 1.0 / (s2 + mm);
        const double p0 = (s2 - mm) * inv;
        const double beta = 2.0 * m * inv;
        // 1 - U_v = Phi(-zv), computed directly.
        const double om = 0.5 * TENOR_MATH(erfc)(zv * 0.70710678118654752440);
        const bool zero = om >= 1.0 - p0;
        vn = zero ? 0.0 : TENOR_MATH(log)((1.0 - p0) / om) / beta;
        plain = branch == TENOR_BASKET_FREE ? a_coef >= beta : (branch & 2u) != 0u;
        double y = 0.0;
        if (plain) {
            k0 = c[TENOR_BASKET_K0_PLAIN];
        } else {
            y = p0 + beta * (1.0 - p0) / (beta - a_coef);
            k0 = -TENOR_MATH(log)(y) - (k1 + 0.5 * k3) * vc;
        }
        if (jet) {
            const double rb = 0.5 / (m * inv);
            jet->is = inv;
            jet->r = p0;
            jet->kb = beta;
            jet->hb = zero ? 0.0 : -rb;
            jet->rd = rb / m;
            jet->rup = 0.0;
            jet->a = 0.0;
            jet->q = 0.0;
            jet->b2 = 0.0;
            jet->pp = 0.0;
            if (!plain) {
                jet->rup = 1.0 / (beta - a_coef);
                jet->a = y - p0;
                jet->q = 1.0 / y;
            }
        }
    }
    const double sq = TENOR_MATH(sqrt)(k3 * (vc + vn));
    *vn_out = vn;
    *branch_out = (exponential ? 1u : 0u) | (plain ? 2u : 0u);
    *sq_out = sq;
    if (jet) {
        jet->branch = *branch_out;
        jet->vc = vc;
        jet->vn = vn;
        jet->m = m;
        if (!exponential) {  // the four reciprocals from one division (qe_jet there)
            double hg;
            if (sg > 0.0 && sb > 0.0 && sq > 0.0) {
                const double p1 = s2 * sg, p2 = sb * sq;
                const double x = 1.0 / (p1 * p2);
                jet->is = x * (sg * p2);
                hg = 0.5 * x * (s2 * p2);
                jet->hb = 0.5 * x * (p1 * sq);
                jet->hs = 0.5 * x * (p1 * sb);
            } else {
                jet->is = 1.0 / s2;
                hg = sg > 0.0 ? 0.5 / sg : 0.0;
                jet->hb = sb > 0.0 ? 0.5 / sb : 0.0;
                jet->hs = sq > 0.0 ? 0.5 / sq : 0.0;
            }
            jet->kb = 1.0 + (2.0 * jet->r - 1.0) * hg;
        } else {
            jet->hs = sq > 0.0 ? 0.5 / sq : 0.0;
        }
    }
    return c[TENOR_BASKET_DRIFT_DT] + k0 + k1 * vc + c[TENOR_BASKET_K2] * vn + sq * zx;
}

// tenor_basket_qe_step_jet without the jet (core/kernels/src/basket.rs, qe_step).
TENOR_DEVICE_INLINE double tenor_basket_qe_step(TENOR_GLOBAL const double* __restrict__ c, double vc, double zv,
                                                double zx, tenor_u32 branch, double* vn_out,
                                                tenor_u32* branch_out, double* sq_out) {
    return tenor_basket_qe_step_jet(c, vc, zv, zx, branch, vn_out, branch_out, sq_out, (tenor_basket_qe_jet*)0);
}

// The tangent of a QE step along one parameter (core/kernels/src/basket.rs, qe_tangent; ADR
// 0038): t the record's derivative by it, tv the variance's before the step, j the base step's
// jet; *tvn the next variance's derivative, returns the log-price increment's.
TENOR_DEVICE_INLINE double tenor_basket_qe_tangent(TENOR_GLOBAL const double* __restrict__ c,
                                                   TENOR_GLOBAL const double* __restrict__ t,
                                                   const tenor_basket_qe_jet* j, double tv, double zx, double* tvn_out) {
    const double vc = j->vc;
    const double tm = t[TENOR_BASKET_THETA] + (tv - t[TENOR_BASKET_THETA]) * c[TENOR_BASKET_E] +
                      (vc - c[TENOR_BASKET_THETA]) * t[TENOR_BASKET_E];
    const double ts2 = tv * c[TENOR_BASKET_S2A] + vc * t[TENOR_BASKET_S2A] + t[TENOR_BASKET_S2B];
    const bool plain = (j->branch & 2u) != 0u;
    const double tkv = (t[TENOR_BASKET_K1] + 0.5 * t[TENOR_BASKET_K3]) * vc +
                       (c[TENOR_BASKET_K1] + 0.5 * c[TENOR_BASKET_K3]) * tv;
    double tvn, tk0;
    if ((j->branch & 1u) == 0u) {
        const double tb2 = j->kb * (j->is * (4.0 * j->m * tm - j->r * ts2));
        const double ta = (tm - j->a * tb2) * j->rd;
        tvn = j->q * (ta * j->q + 2.0 * j->a * (j->hb * tb2));
        if (plain) {
            tk0 = t[TENOR_BASKET_K0_PLAIN];
        } else {
            const double tu = tb2 - 2.0 * (t[TENOR_BASKET_A] * j->m + c[TENOR_BASKET_A] * tm);
            const double tp = j->rup * (t[TENOR_BASKET_A] * j->b2 * j->m + c[TENOR_BASKET_A] * (tb2 * j->m + j->b2 * tm) -
                                        j->pp * tu);
            tk0 = -tp + 0.5 * (tu * j->rup - tb2 * j->rd) - tkv;
        }
    } else {
        const double tmm = 2.0 * j->m * tm;
        const double tw = ts2 + tmm;
        const double tp0 = (ts2 - tmm - j->r * tw) * j->is;
        const double tbeta = (2.0 * tm - j->kb * tw) * j->is;
        tvn = j->hb * (tp0 * j->rd + j->vn * tbeta);
        if (plain) {
            tk0 = t[TENOR_BASKET_K0_PLAIN];
        } else {
            const double ty = tp0 + j->rup * (tbeta * (1.0 - j->r) - j->kb * tp0 - j->a * (tbeta - t[TENOR_BASKET_A]));
            tk0 = -ty * j->q - tkv;
        }
    }
    const double tsq = j->hs * (t[TENOR_BASKET_K3] * (vc + j->vn) + c[TENOR_BASKET_K3] * (tv + tvn));
    *tvn_out = tvn;
    return t[TENOR_BASKET_DRIFT_DT] + tk0 + t[TENOR_BASKET_K1] * vc + c[TENOR_BASKET_K1] * tv +
           t[TENOR_BASKET_K2] * j->vn + c[TENOR_BASKET_K2] * tvn + tsq * zx;
}

// One step of every asset of a path (x = ln S, v) with the correlated normals z; the branches
// and zx coefficients of each asset in branches[], sq[].
TENOR_DEVICE_INLINE void tenor_basket_step(TENOR_GLOBAL const double* __restrict__ assets, tenor_u32 n, const double* z,
                                           double* x, double* v, tenor_u32* branches, double* sq) {
    for (tenor_u32 i = 0; i < n; ++i) {
        double vn, s;
        tenor_u32 b;
        const double dx = tenor_basket_qe_step(assets + i * TENOR_BASKET_RECORD, v[i], z[i], z[n + i],
                                               TENOR_BASKET_FREE, &vn, &b, &s);
        v[i] = vn;
        x[i] += dx;
        branches[i] = b;
        sq[i] = s;
    }
}

// The spots, the basket B (returned) and *nu = sum_i w_i S_i v_i / strike of a state.
TENOR_DEVICE_INLINE double tenor_basket_observe(TENOR_GLOBAL const double* __restrict__ assets, tenor_u32 n,
                                                const double* x, const double* v, double strike, double* spots,
                                                double* nu) {
    double b = 0.0, wv = 0.0;
    for (tenor_u32 i = 0; i < n; ++i) {
        const double s = TENOR_MATH(exp)(x[i]);
        spots[i] = s;
        const double ws = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT] * s;
        b += ws;
        wv += ws * v[i];
    }
    *nu = wv / strike;
    return b;
}

// The regression basis 1, xi, xi^2, nu, xi nu, xi^3 (the first nb; phi[nb .. 6) = 0, so that
// sums over the basis run over 6 constant indices and stay in registers).
TENOR_DEVICE_INLINE void tenor_basket_basis(double xi, double nu, tenor_u32 nb, double* phi) {
    phi[0] = nb > 0u ? 1.0 : 0.0;
    phi[1] = nb > 1u ? xi : 0.0;
    phi[2] = nb > 2u ? xi * xi : 0.0;
    phi[3] = nb > 3u ? nu : 0.0;
    phi[4] = nb > 4u ? xi * nu : 0.0;
    phi[5] = nb > 5u ? xi * xi * xi : 0.0;
}

// The continuation estimate sum_j coef[j] phi_j from j = 0 up into cont, the basis of
// tenor_basket_basis written out term by term (a loop over a phi array indexed by the run-time nb
// put the array in local memory), each coefficient read where its term is added (reading all six
// first kept more values live in basket_sens: more spills). A macro, so that coef may be a global
// row (the valuation) or a private array (the backward induction): OpenCL C 1.2 has no generic
// address space.
#define TENOR_BASKET_CONTINUATION(cont, xi, nu, nb, coef)                                            \
    do {                                                                                             \
        (cont) = 0.0;                                                                                \
        if ((nb) > 0u) (cont) += (coef)[0] * 1.0;                                                    \
        if ((nb) > 1u) (cont) += (coef)[1] * (xi);                                                   \
        if ((nb) > 2u) (cont) += (coef)[2] * ((xi) * (xi));                                          \
        if ((nb) > 3u) (cont) += (coef)[3] * (nu);                                                   \
        if ((nb) > 4u) (cont) += (coef)[4] * ((xi) * (nu));                                          \
        if ((nb) > 5u) (cont) += (coef)[5] * ((xi) * (xi) * (xi));                                   \
    } while (0)

// The exercise rule into ex: a path whose payoff pay = max(sign (B - K), 0) is positive
// exercises at the last date, before it where pay exceeds the continuation estimate at xi = B / K
// - 1 and nu (coef: a global row or a private array, as TENOR_BASKET_CONTINUATION).
#define TENOR_BASKET_EXERCISES(ex, pay, xi, nu, nb, coef, last)                                       \
    do {                                                                                             \
        (ex) = (pay) > 0.0 && (last);                                                                \
        if ((pay) > 0.0 && !(last)) {                                                                \
            const double exercise_xi_ = (xi); /* once: the argument may be a division */            \
            double exercise_cont_;                                                                      \
            TENOR_BASKET_CONTINUATION(exercise_cont_, exercise_xi_, nu, nb, coef);                      \
            (ex) = (pay) > exercise_cont_;                                                              \
        }                                                                                            \
    } while (0)

// Whether a path with basket b and feature nu exercises under coefficients coef (nb of them;
// last: the final date); *e its payoff max(sign (b - K), 0).
TENOR_DEVICE_INLINE bool tenor_basket_exercise(double b, double nu, double strike, double sign,
                                               TENOR_GLOBAL const double* __restrict__ coef, tenor_u32 nb, bool last,
                                               double* e) {
    const double pay = TENOR_MATH(fmax)(sign * (b - strike), 0.0);
    *e = pay;
    if (pay <= 0.0) {  // (the division below only for a path in the money)
        *e = 0.0;
        return false;
    }
    bool ex;
    TENOR_BASKET_EXERCISES(ex, pay, b / strike - 1.0, nu, nb, coef, last);
    return ex;
}

// Index of the pair (i, j), i < j < n, in row-major order of the strict upper triangle.
TENOR_DEVICE_INLINE tenor_u32 tenor_basket_pair(tenor_u32 i, tenor_u32 j, tenor_u32 n) {
    return i * (2u * n - i - 1u) / 2u + (j - i - 1u);
}

#if TENOR_WARP_LANES
// ---------------------------------------------------------------------------------------------
// CUDA: one lane per asset (ADR 0035). basket_paths, basket_value and basket_sens run a path on
// n lanes of a warp: lane l of warp w serves asset l % n of path w (32 / n) + l / n (lanes from
// (32 / n) n on are idle; the launch has lane_items(paths, n) work items, tenor_kernels::basket).
// Lane a draws Philox pair a (factors 2a and 2a + 1), the path's 2n normals reach every lane by
// warp shuffles, and the lane steps its asset (and, in basket_sens, the asset's tangents).
// Every sum over assets is added in asset order from shuffled terms, in the expression the
// per-path functions below use, so the basket, the exercise decisions and the per-path values
// are those of the per-path code up to the order of the cross gammas' two halves. Shuffles run
// on all 32 lanes (convergent code: lanes of finished or missing paths keep stepping and write
// nothing); a warp stops when none of its paths needs more steps. These kernels' blocks are
// TENOR_BLOCK threads (one thread per work item: the manifest's block, 256 for paths and value,
// 128 for sens).
#define TENOR_LANES_ALL 0xffffffffu

typedef struct tenor_basket_lane {
    u64 path;    // the path (0 for a lane that serves none)
    u32 asset;   // this lane's asset
    u32 first;   // the path's first lane in the warp
    bool active; // whether the lane serves a path below `paths` (and writes)
} tenor_basket_lane;

__device__ __forceinline__ tenor_basket_lane tenor_basket_lane_of(u64 paths, u32 n) {
    const u32 l = threadIdx.x & 31u, per_warp = 32u / n, slot = l / n;
    const u64 p = (((u64)blockIdx.x * TENOR_BLOCK + threadIdx.x) >> 5) * per_warp + slot;
    tenor_basket_lane r;
    r.asset = l % n;
    r.first = slot * n;
    r.active = slot < per_warp && p < paths;
    r.path = r.active ? p : 0u;
    return r;
}

// Normal `c` of the path (factor c) from the lane that drew it; e0, e1: this lane's pair.
__device__ __forceinline__ double tenor_basket_lane_eps(double e0, double e1, tenor_basket_lane ln, u32 c) {
    return __shfl_sync(TENOR_LANES_ALL, (c & 1u) != 0u ? e1 : e0, (int)(ln.first + (c >> 1)));
}

// This lane's Philox pair of step `step` (*e0, *e1: factors 2a and 2a + 1) and its correlated
// normals *zv = z[a] (variance) and *zx = z[n + a] (log-price), each row summed in factor order
// as tenor_basket_correlate.
__device__ __forceinline__ void tenor_basket_lane_normals(const double* __restrict__ factor, u64 seed, u32 set,
                                                          tenor_basket_lane ln, u32 step, u32 n, double* e0,
                                                          double* e1, double* zv, double* zx) {
    tenor_basket_normal_pair(seed, set, ln.path, step, ln.asset, e0, e1);
    const u32 f = 2u * n;
    const double* rv = factor + (u64)ln.asset * f;
    const double* rx = factor + (u64)(n + ln.asset) * f;
    double av = 0.0, ax = 0.0;
    for (u32 c = 0; c < f; ++c) {
        const double e = tenor_basket_lane_eps(*e0, *e1, ln, c);
        if (c <= ln.asset) av += rv[c] * e;
        if (c <= n + ln.asset) ax += rx[c] * e;
    }
    *zv = av;
    *zx = ax;
}

// The basket B (returned) and *nu of the path on every lane, from each lane's ws = w S and v
// (tenor_basket_observe's sums, in asset order).
__device__ __forceinline__ double tenor_basket_lane_observe(tenor_basket_lane ln, u32 n, double ws, double v,
                                                            double strike, double* nu) {
    double b = 0.0, wv = 0.0;
    for (u32 i = 0; i < n; ++i) {
        const double wsi = __shfl_sync(TENOR_LANES_ALL, ws, (int)(ln.first + i));
        const double vi = __shfl_sync(TENOR_LANES_ALL, v, (int)(ln.first + i));
        b += wsi;
        wv += wsi * vi;
    }
    *nu = wv / strike;
    return b;
}

// basket_paths on lanes.
__device__ __forceinline__ void tenor_basket_paths_lanes(double* __restrict__ basket, double* __restrict__ feature,
                                                         const double* __restrict__ assets,
                                                         const double* __restrict__ factor, u64 seed, u32 set,
                                                         u64 paths, u32 steps, u32 n, double strike) {
    const tenor_basket_lane ln = tenor_basket_lane_of(paths, n);
    if (!__any_sync(TENOR_LANES_ALL, ln.active)) return;  // the whole warp
    const double* c = assets + ln.asset * TENOR_BASKET_RECORD;
    double x = c[TENOR_BASKET_X0], v = c[TENOR_BASKET_V0];
    for (u32 s = 0; s < steps; ++s) {
        double e0, e1, zv, zx, vn, sq;
        u32 br;
        tenor_basket_lane_normals(factor, seed, set, ln, s, n, &e0, &e1, &zv, &zx);
        const double dx = tenor_basket_qe_step(c, v, zv, zx, TENOR_BASKET_FREE, &vn, &br, &sq);
        v = vn;
        x += dx;
        const double ws = c[TENOR_BASKET_WEIGHT] * exp(x);
        double nu;
        const double b = tenor_basket_lane_observe(ln, n, ws, v, strike, &nu);
        if (ln.active && ln.asset == 0u) {
            basket[(u64)s * paths + ln.path] = b;
            feature[(u64)s * paths + ln.path] = nu;
        }
    }
}

// The cross gammas of a path from the lanes' halves in cross[k][thread] (k: the other asset):
// lane lo writes cross gamma (lo, hi) = its half for hi + lane hi's half for lo.
__device__ __forceinline__ void tenor_basket_lane_cross(double* __restrict__ contrib, const double* cross,
                                                        tenor_basket_lane ln, u64 paths, u32 n) {
    __syncwarp();
    if (!ln.active) return;
    const u32 a = ln.asset, me = threadIdx.x, lane0 = threadIdx.x - a;
    for (u32 hi = a + 1u; hi < n; ++hi) {
        const double half = cross[hi * TENOR_BLOCK + me] + cross[a * TENOR_BLOCK + lane0 + hi];
        contrib[(u64)(1u + 2u * n + tenor_basket_pair(a, hi, n)) * paths + ln.path] = half;
    }
}

// The spot scenarios of lane a's asset at a date (basket_value's rows; after the base
// scenario's decision): each live scenario (bit h of *mine: spot a scaled by 1 + bump, h = 0, or
// 1 - bump) decides its exercise at the basket bk + ds; at an exercise its pathwise deltas of
// every asset k go to *gamma (k = a) and to the lane's half of the cross gamma (a, k) in
// cross[k][thread]. The whole warp calls it (shuffles when some lane has an exercise).
__device__ __forceinline__ void tenor_basket_lane_scenarios(const double* __restrict__ assets, tenor_basket_lane ln,
                                                            u32 n, u32 nb, const double* cf, bool last, double bk,
                                                            double nu, double v, double w, double spot, double s0,
                                                            double strike, double sign, double rate, double t,
                                                            double bump, u32* mine, double* gamma, double* cross) {
    const u32 a = ln.asset;
    bool ev0 = false, ev1 = false;
    double scale0 = 0.0, scale1 = 0.0;
    for (u32 h = 0; h < 2u; ++h) {
        if ((*mine & (1u << h)) == 0u) continue;
        const double dir = h == 0u ? 1.0 : -1.0;
        const double ds = dir * bump * w * spot;
        double e;
        if (tenor_basket_exercise(bk + ds, nu + ds * v / strike, strike, sign, cf, nb, last, &e)) {
            const double scale = dir * exp(-rate * t) * sign / (2.0 * bump * s0);
            if (h == 0u) { ev0 = true; scale0 = scale; } else { ev1 = true; scale1 = scale; }
            *mine &= ~(1u << h);
        }
    }
    if (!__any_sync(TENOR_LANES_ALL, ev0 || ev1)) return;
    for (u32 k = 0; k < n; ++k) {
        const double sk = __shfl_sync(TENOR_LANES_ALL, spot, (int)(ln.first + k));
        const double wk = assets[k * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT];
        const double s0k = assets[k * TENOR_BASKET_RECORD + TENOR_BASKET_SPOT];
        for (u32 h = 0; h < 2u; ++h) {
            if (!(h == 0u ? ev0 : ev1)) continue;
            const double dk = (h == 0u ? scale0 : scale1) * wk * sk / s0k;
            if (k == a) {
                *gamma += dk;
            } else {
                cross[k * TENOR_BLOCK + threadIdx.x] += 0.5 * dk;
            }
        }
    }
}

// basket_value on lanes. Lane a keeps the base scenario's price and rho (written by lane 0), its
// asset's delta, and its spot's two scenarios (up, down): their gamma and their halves of the
// cross gammas with every other asset k, in shared memory (cross[k][thread]); at the end lane
// lo writes cross gamma (lo, hi) = its half for hi + lane hi's half for lo.
__device__ __forceinline__ void tenor_basket_value_lanes(double* __restrict__ contrib, const double* __restrict__ assets,
                                                         const double* __restrict__ factor,
                                                         const double* __restrict__ coef, u64 seed, u32 set,
                                                         u64 paths, u32 steps, u32 n, u32 nb, u32 rows,
                                                         double strike, double sign, double rate, double dt,
                                                         double bump) {
    __shared__ double cross[TENOR_BASKET_MAX_ASSETS * TENOR_BLOCK];
    const tenor_basket_lane ln = tenor_basket_lane_of(paths, n);
    if (!__any_sync(TENOR_LANES_ALL, ln.active)) return;  // the whole warp
    const u32 full = 2u + 2u * n + n * (n - 1u) / 2u;
    const bool greeks = rows >= full;
    const u32 used = greeks ? full : 1u;
    const u32 a = ln.asset;
    const double* c = assets + a * TENOR_BASKET_RECORD;
    const double w = c[TENOR_BASKET_WEIGHT], s0 = c[TENOR_BASKET_SPOT];
    double x = c[TENOR_BASKET_X0], v = c[TENOR_BASKET_V0];
    double price = 0.0, delta = 0.0, gamma = 0.0, rho = 0.0;
    if (greeks) {
        for (u32 k = 0; k < n; ++k) cross[k * TENOR_BLOCK + threadIdx.x] = 0.0;
    }
    bool base = ln.active;                       // the base scenario has not exercised
    u32 mine = (greeks && ln.active) ? 3u : 0u;  // bit h: spot a scaled by 1 + bump (h = 0), 1 - bump (h = 1)
    for (u32 s = 0; s < steps; ++s) {
        if (!__any_sync(TENOR_LANES_ALL, base || mine != 0u)) break;
        double e0, e1, zv, zx, vn, sq;
        u32 br;
        tenor_basket_lane_normals(factor, seed, set, ln, s, n, &e0, &e1, &zv, &zx);
        const double dx = tenor_basket_qe_step(c, v, zv, zx, TENOR_BASKET_FREE, &vn, &br, &sq);
        v = vn;
        x += dx;
        const double spot = exp(x);
        const double ws = w * spot;
        double nu;
        const double bk = tenor_basket_lane_observe(ln, n, ws, v, strike, &nu);
        const bool last = s + 1u == steps;
        const double t = dt * (double)(s + 1u);
        const double* cf = coef + (u64)s * nb;
        if (base) {
            double e;
            if (tenor_basket_exercise(bk, nu, strike, sign, cf, nb, last, &e)) {
                const double d = exp(-rate * t);
                price += d * e;
                if (greeks) {
                    delta += d * sign * w * spot / s0;
                    rho += d * t * sign * strike;
                }
                base = false;
            }
        }
        if (!greeks) continue;
        tenor_basket_lane_scenarios(assets, ln, n, nb, cf, last, bk, nu, v, w, spot, s0, strike, sign, rate, t, bump, &mine,
                                    &gamma, cross);
    }
    if (ln.active) {
        if (a == 0u) contrib[ln.path] = price;
        if (greeks) {
            contrib[(u64)(1u + a) * paths + ln.path] = delta;
            contrib[(u64)(1u + n + a) * paths + ln.path] = gamma;
            if (a == 0u) contrib[(u64)(used - 1u) * paths + ln.path] = rho;
        }
    }
    if (!greeks) return;
    tenor_basket_lane_cross(contrib, cross, ln, paths, n);
}

// basket_sens on lanes: basket_value's rows with Greeks (as tenor_basket_value_lanes) and this
// kernel's own rows in one pass over the path. Lane a also steps its asset's 5 tangents
// (until the base scenario exercises) and keeps row a of G (G[a][m], m <= a; in shared memory,
// the thread's column of g_rows; the loop over m is unrolled to 16); at the base exercise date it writes the vegas and model vegas
// of asset a, the correlation vegas of the pairs p with p mod n = a and (lane 0) theta; a path
// that never exercises writes zeros there.
__device__ __forceinline__ void tenor_basket_sens_lanes(double* __restrict__ contrib, const double* __restrict__ assets,
                                                        const double* __restrict__ tangents,
                                                        const double* __restrict__ factor,
                                                        const double* __restrict__ dfactor,
                                                        const double* __restrict__ coef, u64 seed, u32 set, u64 paths,
                                                        u32 steps, u32 n, u32 nb, double strike, double sign,
                                                        double rate, double dt, double bump) {
    __shared__ double cross[TENOR_BASKET_MAX_ASSETS * TENOR_BLOCK];
    const tenor_basket_lane ln = tenor_basket_lane_of(paths, n);
    if (!__any_sync(TENOR_LANES_ALL, ln.active)) return;  // the whole warp
    const u32 a = ln.asset, pairs = n * (n - 1u) / 2u;
    const u32 vrows = 2u + 2u * n + pairs, rows = 4u * n + pairs + 1u;
    double* own = contrib + (u64)vrows * paths;  // this kernel's own rows
    const double* c = assets + a * TENOR_BASKET_RECORD;
    const double* ct = tangents + TENOR_BASKET_TANGENTS * a * TENOR_BASKET_RECORD;
    const double w = c[TENOR_BASKET_WEIGHT], s0 = c[TENOR_BASKET_SPOT];
    double x = c[TENOR_BASKET_X0], v = c[TENOR_BASKET_V0];
    double tv[TENOR_BASKET_TANGENTS], tx[TENOR_BASKET_TANGENTS];  // the tangents of v and ln S
    // Row a of G in shared memory (registers left to the tangents; ADR 0037).
    __shared__ double g_rows[TENOR_BASKET_MAX_ASSETS * TENOR_BLOCK];
#define TENOR_BASKET_G_AT(m) g_rows[(m) * TENOR_BLOCK + threadIdx.x]
#pragma unroll
    for (u32 q = 0; q < TENOR_BASKET_TANGENTS; ++q) {
        tv[q] = ct[q * TENOR_BASKET_RECORD + TENOR_BASKET_V0];
        tx[q] = 0.0;
    }
#pragma unroll
    for (u32 m = 0; m < TENOR_BASKET_MAX_ASSETS; ++m) TENOR_BASKET_G_AT(m) = 0.0;
    for (u32 k = 0; k < n; ++k) cross[k * TENOR_BLOCK + threadIdx.x] = 0.0;
    double price = 0.0, delta = 0.0, gamma = 0.0, rho = 0.0;
    bool base = ln.active;             // the base scenario has not exercised
    u32 mine = ln.active ? 3u : 0u;    // bit h: spot a scaled by 1 + bump (h = 0), 1 - bump (h = 1)
    for (u32 s = 0; s < steps; ++s) {
        if (!__any_sync(TENOR_LANES_ALL, base || mine != 0u)) break;
        double e0, e1, zv, zx, vn, sq;
        u32 br;
        tenor_basket_lane_normals(factor, seed, set, ln, s, n, &e0, &e1, &zv, &zx);
        tenor_basket_qe_jet jet;
        const double dx = tenor_basket_qe_step_jet(c, v, zv, zx, TENOR_BASKET_FREE, &vn, &br, &sq, &jet);
        if (base) {
#pragma unroll
            for (u32 q = 0; q < TENOR_BASKET_TANGENTS; ++q) {
                double tvn;
                tx[q] += tenor_basket_qe_tangent(c, ct + q * TENOR_BASKET_RECORD, &jet, tv[q], zx, &tvn);
                tv[q] = tvn;
            }
        }
        v = vn;
        x += dx;
#pragma unroll
        for (u32 m = 0; m < TENOR_BASKET_MAX_ASSETS; ++m) {
            if (m < n) {
                const double e = tenor_basket_lane_eps(e0, e1, ln, n + m);
                if (m <= a) TENOR_BASKET_G_AT(m) += sq * e;
            }
        }
        const double spot = exp(x);
        const double ws = w * spot;
        double nu;
        const double bk = tenor_basket_lane_observe(ln, n, ws, v, strike, &nu);
        const bool last = s + 1u == steps;
        const double t = dt * (double)(s + 1u);
        const double* cf = coef + (u64)s * nb;
        double e = 0.0;
        const bool ex = base && tenor_basket_exercise(bk, nu, strike, sign, cf, nb, last, &e);
        if (ex) {
            const double dv = exp(-rate * t);
            price += dv * e;
            delta += dv * sign * w * spot / s0;
            rho += dv * t * sign * strike;
        }
        if (__any_sync(TENOR_LANES_ALL, ex)) {
            const double d = exp(-rate * dt * (double)(s + 1u));
            if (ex) {  // the payoff's derivative along a tangent: sign dB (e > 0)
#pragma unroll
                for (u32 q = 0; q + 1u < TENOR_BASKET_TANGENTS; ++q) {
                    own[(u64)(q * n + a) * paths + ln.path] = d * sign * (ws * tx[q]);
                }
            }
            for (u32 pi = 0; pi < pairs; ++pi) {
                double dxk = 0.0;
#pragma unroll
                for (u32 m = 0; m < TENOR_BASKET_MAX_ASSETS; ++m) {
                    if (m <= a) dxk += dfactor[((u64)pi * n + a) * n + m] * TENOR_BASKET_G_AT(m);
                }
                double db = 0.0;
                for (u32 k = 0; k < n; ++k) {
                    const double wsk = __shfl_sync(TENOR_LANES_ALL, ws, (int)(ln.first + k));
                    const double dk = __shfl_sync(TENOR_LANES_ALL, dxk, (int)(ln.first + k));
                    db += wsk * dk;
                }
                if (ex && pi % n == a) own[(u64)(4u * n + pi) * paths + ln.path] = d * sign * db;
            }
            const double tm = tx[TENOR_BASKET_TANGENTS - 1u];
            double db = 0.0;
            for (u32 i = 0; i < n; ++i) {
                const double wsi = __shfl_sync(TENOR_LANES_ALL, ws, (int)(ln.first + i));
                const double tmi = __shfl_sync(TENOR_LANES_ALL, tm, (int)(ln.first + i));
                db += wsi * tmi;
            }
            if (ex && a == 0u) {  // theta: minus the maturity's derivative of D e
                const double dd = -rate * (double)(s + 1u) / (double)steps * d;
                own[(u64)(rows - 1u) * paths + ln.path] = -(dd * e + d * sign * db);
            }
        }
        if (ex) base = false;
        // The spot scenarios of asset a (basket_value's rows).
        tenor_basket_lane_scenarios(assets, ln, n, nb, cf, last, bk, nu, v, w, spot, s0, strike, sign, rate, t, bump, &mine,
                                    &gamma, cross);
    }
    if (ln.active) {
        if (a == 0u) {
            contrib[ln.path] = price;
            contrib[(u64)(vrows - 1u) * paths + ln.path] = rho;
        }
        contrib[(u64)(1u + a) * paths + ln.path] = delta;
        contrib[(u64)(1u + n + a) * paths + ln.path] = gamma;
        if (base) {  // never exercised: this kernel's own rows are 0
            for (u32 q = 0; q + 1u < TENOR_BASKET_TANGENTS; ++q) own[(u64)(q * n + a) * paths + ln.path] = 0.0;
            for (u32 pi = a; pi < pairs; pi += n) own[(u64)(4u * n + pi) * paths + ln.path] = 0.0;
            if (a == 0u) own[(u64)(rows - 1u) * paths + ln.path] = 0.0;
        }
    }
#undef TENOR_BASKET_G_AT
    tenor_basket_lane_cross(contrib, cross, ln, paths, n);
}
#endif  // TENOR_WARP_LANES

// basket_paths (see its kernel.toml).
TENOR_DEVICE_INLINE void tenor_basket_paths(TENOR_GLOBAL double* __restrict__ basket, TENOR_GLOBAL double* __restrict__ feature,
                                            TENOR_GLOBAL const double* __restrict__ assets,
                                            TENOR_GLOBAL const double* __restrict__ factor, tenor_u64 seed, tenor_u32 set,
                                            tenor_u64 paths, tenor_u32 steps, tenor_u32 n, double strike,
                                            tenor_u64 items) {
    if (n == 0u || n > TENOR_BASKET_MAX_ASSETS) return;
    (void)items;
#if TENOR_WARP_LANES
    tenor_basket_paths_lanes(basket, feature, assets, factor, seed, set, paths, steps, n, strike);
#else
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        double eps[TENOR_BASKET_MAX_FACTORS], z[TENOR_BASKET_MAX_FACTORS];
        double x[TENOR_BASKET_MAX_ASSETS], v[TENOR_BASKET_MAX_ASSETS], spots[TENOR_BASKET_MAX_ASSETS];
        double sq[TENOR_BASKET_MAX_ASSETS];
        tenor_u32 branches[TENOR_BASKET_MAX_ASSETS];
        for (tenor_u32 i = 0; i < n; ++i) {
            x[i] = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_X0];
            v[i] = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_V0];
        }
        for (tenor_u32 s = 0; s < steps; ++s) {
            tenor_basket_normals(seed, set, p, s, 2u * n, eps);
            tenor_basket_correlate(factor, eps, 2u * n, z);
            tenor_basket_step(assets, n, z, x, v, branches, sq);
            double nu;
            const double b = tenor_basket_observe(assets, n, x, v, strike, spots, &nu);
            basket[(tenor_u64)s * paths + p] = b;
            feature[(tenor_u64)s * paths + p] = nu;
        }
    }
#endif
}

// A factor record (core/kernels/src/basket.rs, FACTOR_RECORD): L's lower triangle row by row
// (L[r][k] at r (r + 1) / 2 + k, the layout of 6 functions), the reciprocals of its diagonal
// from TENOR_BASKET_FACTOR_INV, the count m of basis functions used at TENOR_BASKET_FACTOR_USED.
#define TENOR_BASKET_GRAM 21
#define TENOR_BASKET_TARGETS 6
#define TENOR_BASKET_GRAM_UNROLL 8
#define TENOR_BASKET_FACTOR 28u
#define TENOR_BASKET_FACTOR_INV 21u
#define TENOR_BASKET_FACTOR_USED 27u

// Index of (X^T X)_{ab}, a <= b < 6, in the packed Gram matrix of 6 functions (the device's sums
// keep the layout of 6 whatever nb: the entries past nb are 0 and never read).
TENOR_DEVICE_INLINE tenor_u32 tenor_basket_packed6(tenor_u32 a, tenor_u32 b) {
    return a * (13u - a) / 2u + (b - a);
}

// The factor record rec (28 values) of the packed Gram matrix xtx (21 values, the layout of 6)
// with the operations of core/kernels/src/basket.rs's factor in its order: a Cholesky
// factorisation that stops at the first basis function whose pivot is under 1e-10 of its
// diagonal entry (m: the functions before it); fewer than 2 nb rows ((X^T X)_00 counts them) or
// no usable function: m = 0. Entries past m are 0.
TENOR_DEVICE_INLINE void tenor_basket_factor(const double* xtx, tenor_u32 nb, double* rec) {
    double l[36];
    for (int k = 0; k < 36; ++k) l[k] = 0.0;
    tenor_u32 m = 0;
    // Whether the factorisation goes on (it stops for good at the first dropped function).
    bool on = xtx[0] >= (double)(2u * nb);
    for (tenor_u32 k = 0; k < nb; ++k) {
        if (on) {
            const double akk = xtx[tenor_basket_packed6(k, k)];
            double d = akk;
            for (tenor_u32 i = 0; i < k; ++i) d -= l[k * 6u + i] * l[k * 6u + i];
            on = d - d == 0.0 && d > 1e-10 * akk;
            if (on) {
                const double lkk = TENOR_MATH(sqrt)(d);
                l[k * 6u + k] = lkk;
                for (tenor_u32 r = k + 1u; r < nb; ++r) {
                    double s = xtx[tenor_basket_packed6(k, r)];
                    for (tenor_u32 i = 0; i < k; ++i) s -= l[r * 6u + i] * l[k * 6u + i];
                    l[r * 6u + k] = s / lkk;
                }
                m = k + 1u;
            }
        }
    }
    for (tenor_u32 k = 0; k < TENOR_BASKET_FACTOR; ++k) rec[k] = 0.0;
    for (tenor_u32 r = 0; r < m; ++r) {
        for (tenor_u32 k = 0; k <= r; ++k) rec[r * (r + 1u) / 2u + k] = l[r * 6u + k];
        rec[TENOR_BASKET_FACTOR_INV + r] = 1.0 / l[r * 6u + r];
    }
    rec[TENOR_BASKET_FACTOR_USED] = (double)m;
}

// The coefficients beta[0 .. nb) from a factor record rec and X^T y (xty[0 .. 6)) with the
// operations of core/kernels/src/basket.rs's substitute in its order: L z = X^T y forwards,
// L^T beta = z backwards over the m functions used, each division a product with the record's
// reciprocal; m = 0 or a non-finite fit: (+inf, 0, ..). Every loop runs over 6 constant indices
// (the run-time m only masks), so rec, z and beta stay in registers: this is the one thread's
// work on the backward induction's per-date chain.
TENOR_DEVICE_INLINE void tenor_basket_substitute(TENOR_GLOBAL const double* __restrict__ rec, const double* xty, tenor_u32 nb,
                                                 double* beta) {
    tenor_u32 m = (tenor_u32)rec[TENOR_BASKET_FACTOR_USED];
    if (m > nb) m = nb;
    double z[6], b[6];
    for (tenor_u32 r = 0; r < 6u; ++r) {
        z[r] = 0.0;
        if (r < m) {
            double s = xty[r];
            for (tenor_u32 j = 0; j < r; ++j) s -= rec[r * (r + 1u) / 2u + j] * z[j];
            z[r] = s * rec[TENOR_BASKET_FACTOR_INV + r];
        }
    }
    for (tenor_u32 q = 6u; q > 0u; --q) {
        const tenor_u32 r = q - 1u;
        b[r] = 0.0;
        if (r < m) {
            double s = z[r];
            for (tenor_u32 j = r + 1u; j < 6u; ++j) {
                if (j < m) s -= rec[j * (j + 1u) / 2u + r] * b[j];
            }
            b[r] = s * rec[TENOR_BASKET_FACTOR_INV + r];
        }
    }
    bool finite = true;
    for (tenor_u32 i = 0; i < 6u; ++i) finite = finite && (i >= m || b[i] - b[i] == 0.0);
    for (tenor_u32 j = 0; j < 6u; ++j) {
        beta[j] = (m == 0u || !finite) ? (j == 0u ? TENOR_INF_F64() : 0.0) : b[j];
    }
}

// Adds the regression row of a path with basket b and feature nu to the packed Gram matrix xtx
// (the layout of 6) if the path is in the money.
TENOR_DEVICE_INLINE void tenor_basket_gram_row(double* xtx, double b, double nu, tenor_u32 nb, double strike, double sign) {
    if (sign * (b - strike) > 0.0) {
        double phi[6];
        tenor_basket_basis(b / strike - 1.0, nu, nb, phi);
        int k = 0;
        for (int a = 0; a < 6; ++a) {
            for (int c = a; c < 6; ++c) {
                xtx[k] += phi[a] * phi[c];
                ++k;
            }
        }
    }
}

// basket_gram (see its kernel.toml): work-group d factors date d's Gram matrix. Work-item i adds
// the in-the-money paths of its items of the date (21 sums in the layout of 6): i, i +
// TENOR_BLOCK, .. where the work-group has TENOR_BLOCK work-items, more per chunk where it has
// fewer; one work-group reduction, and work-item 0 factors the sums into the date's record.
// Work-groups past the last date return at once (the whole group: no barrier is left waiting).
TENOR_DEVICE_INLINE void tenor_basket_gram(TENOR_GLOBAL double* __restrict__ factors, TENOR_GLOBAL const double* __restrict__ basket,
                                           TENOR_GLOBAL const double* __restrict__ feature, tenor_u64 paths, tenor_u32 steps,
                                           tenor_u32 nb, double strike, double sign, tenor_u64 items TENOR_SCRATCH_PARAM) {
    (void)items;
    const tenor_u64 d = TENOR_BLOCK_INDEX();
    if (nb == 0u || nb > TENOR_BASKET_MAX_BASIS || d >= (tenor_u64)steps) return;
    double xtx[TENOR_BASKET_GRAM];
    for (int k = 0; k < TENOR_BASKET_GRAM; ++k) xtx[k] = 0.0;
    TENOR_GLOBAL const double* bd = basket + d * paths;
    TENOR_GLOBAL const double* fd = feature + d * paths;
    // TENOR_BASKET_GRAM_UNROLL chunks of the date's paths at a time, every input read before any
    // is used, so that the reads' latencies overlap (one at a time, the date's 100 chunks of the
    // baseline were 100 latencies in a row).
    for (tenor_u64 chunk = 0; chunk * TENOR_BLOCK < paths; chunk += TENOR_BASKET_GRAM_UNROLL) {
        double bj[TENOR_BASKET_GRAM_UNROLL], fj[TENOR_BASKET_GRAM_UNROLL];
        for (int j = 0; j < TENOR_BASKET_GRAM_UNROLL; ++j) {
            bj[j] = strike;  // out of the money: no row
            fj[j] = 0.0;
            bool held = false;
            TENOR_FOR_ITEMS_IN(p, paths, chunk + (tenor_u64)j) {
                if (!held) {  // the work-item's first item of the chunk: read now, added below
                    bj[j] = bd[p];
                    fj[j] = fd[p];
                    held = true;
                } else {  // a work-group smaller than TENOR_BLOCK: its other items added at once
                    tenor_basket_gram_row(xtx, bd[p], fd[p], nb, strike, sign);
                }
            }
        }
        for (int j = 0; j < TENOR_BASKET_GRAM_UNROLL; ++j) tenor_basket_gram_row(xtx, bj[j], fj[j], nb, strike, sign);
    }
    TENOR_GROUP_SUMS(xtx, TENOR_BASKET_GRAM);
    TENOR_FOR_ITEMS_IN(first, 1, 0) {
        double rec[TENOR_BASKET_FACTOR];
        // The full basis with a constant count, so that the factorisation's arrays stay in
        // registers.
        if (nb == TENOR_BASKET_MAX_BASIS) {
            tenor_basket_factor(xtx, TENOR_BASKET_MAX_BASIS, rec);
        } else {
            tenor_basket_factor(xtx, nb, rec);
        }
        for (tenor_u32 k = 0; k < TENOR_BASKET_FACTOR; ++k) factors[d * TENOR_BASKET_FACTOR + k] = rec[k];
    }
}

// What a work-item carries from one date of basket_backward to the next for its first path p:
// basket and feature at the date (bk, nu; xi = bk / strike - 1, the date before's bp / strike - 1)
// and at the date before (bp, nup), the path's cash.
typedef struct tenor_basket_carry {
    double bk, nu, bp, nup, held, xi;  // xi = bk / strike - 1
} tenor_basket_carry;

// The carry of path p at `step`, read from memory (its cash only before the expiry date, which
// decides without it).
TENOR_DEVICE_INLINE void tenor_basket_carry_read(TENOR_GLOBAL const double* __restrict__ cash,
                                                 TENOR_GLOBAL const double* __restrict__ basket,
                                                 TENOR_GLOBAL const double* __restrict__ feature, tenor_u64 paths,
                                                 tenor_u32 steps, tenor_u32 step, double strike, tenor_u64 p,
                                                 tenor_basket_carry* c) {
    const tenor_u64 at = (tenor_u64)step * paths + p;
    c->bk = basket[at];
    c->xi = c->bk / strike - 1.0;
    c->nu = feature[at];
    c->held = step + 1u < steps ? cash[p] : 0.0;
    c->bp = c->nup = 0.0;
    if (step > 0u) {
        c->bp = basket[at - paths];
        c->nup = feature[at - paths];
    }
}

// The carry of the work-item's first path at `step` (zeros without one).
TENOR_DEVICE_INLINE void tenor_basket_carry_load(TENOR_GLOBAL const double* __restrict__ cash,
                                                 TENOR_GLOBAL const double* __restrict__ basket,
                                                 TENOR_GLOBAL const double* __restrict__ feature, tenor_u64 paths,
                                                 tenor_u32 steps, tenor_u32 step, double strike, tenor_basket_carry* c) {
    c->bk = c->nu = c->bp = c->nup = c->held = c->xi = 0.0;
    TENOR_FOR_ITEMS(p, paths) {
        tenor_basket_carry_read(cash, basket, feature, paths, steps, step, strike, p, c);
        break;
    }
}

// Exercise date `step` of basket_backward (see its kernel.toml). Unless `step` is the last date,
// the work-group first fits the date: work-item i adds the blocks i, i + TENOR_BLOCK, .. of the
// sums X^T y that the date after wrote (partials half step mod 2, slot-major so that the
// work-items' reads of a slot are contiguous; this date writes only the other half), one
// work-group reduction of 6 values, and work-item 0 substitutes them into the date's factor
// record (basket_gram's; tenor_basket_substitute): the same coefficients
// in every work-group (the same sums added in the same order); work-item 0 writes the group's
// copy to fits (work-group 0 also to coef) and broadcasts it: every work-item decides from
// registers. Then the
// decision at `step` and the block's X^T y of step - 1 into partials half (step - 1) mod 2.
// Every work-group takes the same barriers (none returns before them). The fit is the date's
// critical path (ADR 0036): the factor record is read before the sums, the first path's inputs
// come in `carry` (read during the wait for the date before: the next date's basket and
// feature are this date's bp and nup, its cash this date's value; only those of step - 2 are
// read, before this function returns), and the fit is a substitution with no division.
TENOR_DEVICE_INLINE void tenor_basket_backward_date(TENOR_GLOBAL double* __restrict__ partials, TENOR_GLOBAL double* __restrict__ fits,
                                                    TENOR_GLOBAL double* __restrict__ cash, TENOR_GLOBAL double* __restrict__ coef,
                                                    TENOR_GLOBAL const double* __restrict__ factors,
                                                    TENOR_GLOBAL const double* __restrict__ basket,
                                                    TENOR_GLOBAL const double* __restrict__ feature, tenor_u64 paths,
                                                    tenor_u32 steps, tenor_u32 step, tenor_u32 nb, double strike, double sign,
                                                    double df, tenor_basket_carry* carry TENOR_SCRATCH_PARAM) {
    const bool last = step + 1u == steps;
    const tenor_u64 nblocks = (paths + TENOR_BLOCK - 1u) / TENOR_BLOCK;
    const tenor_u64 date_sums = (tenor_u64)TENOR_BASKET_MAX_BASIS * nblocks;  // one half of partials
    // The carry in values before the fit's barriers: AdaptiveCpp's OpenMP host JIT keeps a
    // work-item's values across a barrier, not its memory (read after the barriers, the carry
    // was another work-item's).
    const double c_bk = carry->bk, c_nu = carry->nu, c_bp = carry->bp, c_nup = carry->nup, c_held = carry->held,
                 c_xi = carry->xi;
    double beta[6];
    for (int j = 0; j < 6; ++j) beta[j] = 0.0;
    if (!last) {
        // Work-item 0 (item 0 of block 0's numbering) fits; its factor record fetched first.
        TENOR_GLOBAL const double* rec = factors + (tenor_u64)step * TENOR_BASKET_FACTOR;
        TENOR_FOR_ITEMS_IN(first, 1, 0) {
            // The record's 224 bytes touch at most 3 lines of 128.
            TENOR_PREFETCH(rec);
            TENOR_PREFETCH(rec + 14);
            TENOR_PREFETCH(rec + 27);
        }
        double xty[TENOR_BASKET_TARGETS];
        for (int k = 0; k < TENOR_BASKET_TARGETS; ++k) xty[k] = 0.0;
        TENOR_GLOBAL const double* sums = partials + (tenor_u64)(step & 1u) * date_sums;
        for (tenor_u64 chunk = 0; chunk * TENOR_BLOCK < nblocks; ++chunk) {
            TENOR_FOR_ITEMS_IN(blk, nblocks, chunk) {
                for (int k = 0; k < TENOR_BASKET_TARGETS; ++k) xty[k] += sums[(tenor_u64)k * nblocks + blk];
            }
        }
        TENOR_GROUP_SUMS(xty, TENOR_BASKET_TARGETS);
        TENOR_FOR_ITEMS_IN(first, 1, 0) {
            tenor_basket_substitute(rec, xty, nb, beta);
            TENOR_GLOBAL double* fit = fits + (tenor_u64)TENOR_BASKET_MAX_BASIS * TENOR_BLOCK_INDEX();
            for (tenor_u32 j = 0; j < TENOR_BASKET_MAX_BASIS; ++j) {
                if (j < nb) {
                    fit[j] = beta[j];
                    if (TENOR_BLOCK_INDEX() == 0u) coef[(tenor_u64)step * nb + j] = beta[j];
                }
            }
        }
        TENOR_GROUP_BROADCAST(beta, 6);
    }
    double acc[TENOR_BASKET_TARGETS];
    for (int k = 0; k < TENOR_BASKET_TARGETS; ++k) acc[k] = 0.0;
    bool first = true;
    TENOR_FOR_ITEMS(p, paths) {
        const tenor_u64 at = (tenor_u64)step * paths + p;
        double bk = c_bk, nu = c_nu, bp = c_bp, nup = c_nup, held = c_held, xi = c_xi;
        if (!first) {
            tenor_basket_carry other;
            tenor_basket_carry_read(cash, basket, feature, paths, steps, step, strike, p, &other);
            bk = other.bk;
            nu = other.nu;
            held = other.held;
            xi = other.xi;
            bp = other.bp;
            nup = other.nup;
        }
        // tenor_basket_exercise's rule with the coefficients in registers.
        const double pay = TENOR_MATH(fmax)(sign * (bk - strike), 0.0);
        bool ex;
        TENOR_BASKET_EXERCISES(ex, pay, xi, nu, nb, beta, last);
        const double value = ex ? pay : (last ? 0.0 : df * held);
        cash[p] = value;
        const double xip = bp / strike - 1.0;
        if (step > 0u && sign * (bp - strike) > 0.0) {
            double phi[6];
            tenor_basket_basis(xip, nup, nb, phi);
            const double y = df * value;
            for (int a = 0; a < TENOR_BASKET_TARGETS; ++a) acc[a] += phi[a] * y;
        }
        if (first) {
            // The next date's carry: its basket and feature are this date's of step - 1, its
            // cash this value; those of step - 2 read now.
            carry->bk = bp;
            carry->nu = nup;
            carry->xi = xip;
            carry->held = value;
            if (step > 1u) {
                carry->bp = basket[at - 2u * paths];
                carry->nup = feature[at - 2u * paths];
            }
        }
        first = false;
    }
    if (step > 0u) {
        TENOR_GROUP_SUMS(acc, TENOR_BASKET_TARGETS);
        TENOR_GLOBAL double* out = partials + (tenor_u64)((step - 1u) & 1u) * date_sums;
        TENOR_FOR_ITEMS_IN(first, 1, 0) {
            for (int k = 0; k < TENOR_BASKET_TARGETS; ++k) out[(tenor_u64)k * nblocks + TENOR_BLOCK_INDEX()] = acc[k];
        }
    }
}

// basket_backward (see its kernel.toml): the dates step, step - 1, .., step - dates + 1 in turn.
// Between two dates every block waits for all the others (TENOR_GRID_SYNC on the counter sync:
// the k-th wait returns once nblocks blocks arrived k times), so that the next date's fit sees
// every block's sums; a launch of dates > 1 must have all its blocks resident at once
// (Compute::launch_cooperative; ADR 0036). Backends without TENOR_HAS_GRID_SYNC take dates = 1
// only (dates > 1: nothing is written).
TENOR_DEVICE_INLINE void tenor_basket_backward(TENOR_GLOBAL double* __restrict__ partials, TENOR_GLOBAL double* __restrict__ fits,
                                               TENOR_GLOBAL double* __restrict__ cash, TENOR_GLOBAL double* __restrict__ coef,
                                               TENOR_GLOBAL tenor_u32* sync, TENOR_GLOBAL const double* __restrict__ factors,
                                               TENOR_GLOBAL const double* __restrict__ basket,
                                               TENOR_GLOBAL const double* __restrict__ feature, tenor_u64 paths, tenor_u32 steps,
                                               tenor_u32 step, tenor_u32 dates, tenor_u32 nb, double strike, double sign,
                                               double df TENOR_SCRATCH_PARAM) {
    if (nb == 0u || nb > TENOR_BASKET_MAX_BASIS || step >= steps || dates == 0u || dates > step + 1u) return;
#if !TENOR_HAS_GRID_SYNC
    if (dates > 1u) return;
#endif
    const tenor_u32 nblocks = (tenor_u32)((paths + TENOR_BLOCK - 1u) / TENOR_BLOCK);
    tenor_basket_carry carry;
    tenor_basket_carry_load(cash, basket, feature, paths, steps, step, strike, &carry);
    for (tenor_u32 k = 0; k < dates; ++k) {
        if (k > 0u) TENOR_GRID_SYNC(sync, nblocks * k);
        tenor_basket_backward_date(partials, fits, cash, coef, factors, basket, feature, paths, steps, step - k, nb, strike,
                                   sign, df, &carry TENOR_SCRATCH_ARG);
    }
}

// basket_value (see its kernel.toml).
TENOR_DEVICE_INLINE void tenor_basket_value(TENOR_GLOBAL double* __restrict__ contrib, TENOR_GLOBAL const double* __restrict__ assets,
                                            TENOR_GLOBAL const double* __restrict__ factor,
                                            TENOR_GLOBAL const double* __restrict__ coef, tenor_u64 seed, tenor_u32 set,
                                            tenor_u64 paths, tenor_u32 steps, tenor_u32 n, tenor_u32 nb, tenor_u32 rows,
                                            double strike, double sign, double rate, double dt, double bump,
                                            tenor_u64 items) {
    if (n == 0u || n > TENOR_BASKET_MAX_ASSETS || nb == 0u || nb > TENOR_BASKET_MAX_BASIS) return;
    (void)items;
#if TENOR_WARP_LANES
    tenor_basket_value_lanes(contrib, assets, factor, coef, seed, set, paths, steps, n, nb, rows, strike, sign, rate, dt,
                             bump);
#else
    const tenor_u32 full = 2u + 2u * n + n * (n - 1u) / 2u;
    const bool greeks = rows >= full;
    const tenor_u32 used = greeks ? full : 1u;
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        double acc[TENOR_BASKET_VALUE_ROWS];
        double eps[TENOR_BASKET_MAX_FACTORS], z[TENOR_BASKET_MAX_FACTORS];
        double x[TENOR_BASKET_MAX_ASSETS], v[TENOR_BASKET_MAX_ASSETS], spots[TENOR_BASKET_MAX_ASSETS];
        double sq[TENOR_BASKET_MAX_ASSETS];
        tenor_u32 branches[TENOR_BASKET_MAX_ASSETS];
        for (tenor_u32 r = 0; r < used; ++r) acc[r] = 0.0;
        for (tenor_u32 i = 0; i < n; ++i) {
            x[i] = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_X0];
            v[i] = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_V0];
        }
        // Bit 0: the base scenario; bits 1 + 2j and 2 + 2j: spot j up and down.
        tenor_u64 alive = greeks ? (((tenor_u64)1 << (1u + 2u * n)) - 1u) : (tenor_u64)1;
        for (tenor_u32 s = 0; s < steps; ++s) {
            tenor_basket_normals(seed, set, p, s, 2u * n, eps);
            tenor_basket_correlate(factor, eps, 2u * n, z);
            tenor_basket_step(assets, n, z, x, v, branches, sq);
            double nu;
            const double bk = tenor_basket_observe(assets, n, x, v, strike, spots, &nu);
            const bool last = s + 1u == steps;
            const double t = dt * (double)(s + 1u);
            TENOR_GLOBAL const double* c = coef + (tenor_u64)s * nb;
            if ((alive & 1u) != 0u) {
                double e;
                if (tenor_basket_exercise(bk, nu, strike, sign, c, nb, last, &e)) {
                    const double d = TENOR_MATH(exp)(-rate * t);
                    acc[0] += d * e;
                    if (greeks) {
                        for (tenor_u32 k = 0; k < n; ++k) {
                            acc[1u + k] += d * sign * assets[k * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT] * spots[k] /
                                           assets[k * TENOR_BASKET_RECORD + TENOR_BASKET_SPOT];
                        }
                        acc[used - 1u] += d * t * sign * strike;
                    }
                    alive &= ~(tenor_u64)1;
                }
            }
            if (greeks) {
                for (tenor_u32 j = 0; j < n; ++j) {
                    for (tenor_u32 h = 0; h < 2u; ++h) {
                        const tenor_u32 bit = 1u + 2u * j + h;
                        if ((alive & ((tenor_u64)1 << bit)) == 0u) continue;
                        const double dir = h == 0u ? 1.0 : -1.0;
                        const double ds = dir * bump * assets[j * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT] * spots[j];
                        double e;
                        if (tenor_basket_exercise(bk + ds, nu + ds * v[j] / strike, strike, sign, c, nb, last, &e)) {
                            const double scale = dir * TENOR_MATH(exp)(-rate * t) * sign /
                                                 (2.0 * bump * assets[j * TENOR_BASKET_RECORD + TENOR_BASKET_SPOT]);
                            for (tenor_u32 k = 0; k < n; ++k) {
                                const double dk = scale * assets[k * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT] * spots[k] /
                                                  assets[k * TENOR_BASKET_RECORD + TENOR_BASKET_SPOT];
                                if (k == j) {
                                    acc[1u + n + j] += dk;
                                } else {
                                    const tenor_u32 lo = j < k ? j : k, hi = j < k ? k : j;
                                    acc[1u + 2u * n + tenor_basket_pair(lo, hi, n)] += 0.5 * dk;
                                }
                            }
                            alive &= ~((tenor_u64)1 << bit);
                        }
                    }
                }
            }
            if (alive == 0u) break;
        }
        for (tenor_u32 r = 0; r < used; ++r) contrib[(tenor_u64)r * paths + p] = acc[r];
    }
#endif
}

// basket_sens (see its kernel.toml).
TENOR_DEVICE_INLINE void tenor_basket_sens(TENOR_GLOBAL double* __restrict__ contrib, TENOR_GLOBAL const double* __restrict__ assets,
                                           TENOR_GLOBAL const double* __restrict__ tangents,
                                           TENOR_GLOBAL const double* __restrict__ factor,
                                           TENOR_GLOBAL const double* __restrict__ dfactor,
                                           TENOR_GLOBAL const double* __restrict__ coef, tenor_u64 seed, tenor_u32 set,
                                           tenor_u64 paths, tenor_u32 steps, tenor_u32 n, tenor_u32 nb, tenor_u32 all_rows,
                                           double strike, double sign, double rate, double dt, double bump,
                                           tenor_u64 items) {
    // The value rows (basket_value's with Greeks), then this kernel's own rows.
    const tenor_u32 vrows = 2u + 2u * n + n * (n - 1u) / 2u;
    const tenor_u32 rows = 4u * n + n * (n - 1u) / 2u + 1u;
    if (n == 0u || n > TENOR_BASKET_MAX_ASSETS || nb == 0u || nb > TENOR_BASKET_MAX_BASIS || all_rows != vrows + rows)
        return;
    (void)items;
#if TENOR_WARP_LANES
    tenor_basket_sens_lanes(contrib, assets, tangents, factor, dfactor, coef, seed, set, paths, steps, n, nb, strike, sign,
                            rate, dt, bump);
#else
    // One work-item per path: basket_value's pass, then the tangents' pass over the same
    // normals (the lanes above share one pass).
    tenor_basket_value(contrib, assets, factor, coef, seed, set, paths, steps, n, nb, vrows, strike, sign, rate, dt, bump,
                       items);
    contrib += (tenor_u64)vrows * paths;
    TENOR_FOR_ITEM_PER_THREAD(p, paths) {
        double acc[TENOR_BASKET_SENS_ROWS];
        double eps[TENOR_BASKET_MAX_FACTORS], z[TENOR_BASKET_MAX_FACTORS];
        double x[TENOR_BASKET_MAX_ASSETS], v[TENOR_BASKET_MAX_ASSETS], spots[TENOR_BASKET_MAX_ASSETS];
        double sq[TENOR_BASKET_MAX_ASSETS];
        double tv[TENOR_BASKET_MAX_ASSETS * TENOR_BASKET_TANGENTS], tx[TENOR_BASKET_MAX_ASSETS * TENOR_BASKET_TANGENTS];
        double g[TENOR_BASKET_G];
        for (tenor_u32 r = 0; r < rows; ++r) acc[r] = 0.0;
        for (tenor_u32 i = 0; i < n; ++i) {
            x[i] = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_X0];
            v[i] = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_V0];
            for (tenor_u32 q = 0; q < TENOR_BASKET_TANGENTS; ++q) {
                tv[i * TENOR_BASKET_TANGENTS + q] =
                    tangents[(TENOR_BASKET_TANGENTS * i + q) * TENOR_BASKET_RECORD + TENOR_BASKET_V0];
                tx[i * TENOR_BASKET_TANGENTS + q] = 0.0;
            }
        }
        for (tenor_u32 k = 0; k < n * (n + 1u) / 2u; ++k) g[k] = 0.0;
        for (tenor_u32 s = 0; s < steps; ++s) {
            tenor_basket_normals(seed, set, p, s, 2u * n, eps);
            tenor_basket_correlate(factor, eps, 2u * n, z);
            for (tenor_u32 i = 0; i < n; ++i) {
                double vn, si;
                tenor_u32 br;
                tenor_basket_qe_jet jet;
                const double dx = tenor_basket_qe_step_jet(assets + i * TENOR_BASKET_RECORD, v[i], z[i], z[n + i],
                                                           TENOR_BASKET_FREE, &vn, &br, &si, &jet);
                for (tenor_u32 q = 0; q < TENOR_BASKET_TANGENTS; ++q) {
                    const tenor_u32 k = i * TENOR_BASKET_TANGENTS + q;
                    double tvn;
                    tx[k] += tenor_basket_qe_tangent(assets + i * TENOR_BASKET_RECORD,
                                                     tangents + (TENOR_BASKET_TANGENTS * i + q) * TENOR_BASKET_RECORD, &jet,
                                                     tv[k], z[n + i], &tvn);
                    tv[k] = tvn;
                }
                v[i] = vn;
                x[i] += dx;
                sq[i] = si;
            }
            for (tenor_u32 k = 0; k < n; ++k) {
                for (tenor_u32 m = 0; m <= k; ++m) g[k * (k + 1u) / 2u + m] += sq[k] * eps[n + m];
            }
            double nu;
            const double bk = tenor_basket_observe(assets, n, x, v, strike, spots, &nu);
            const bool last = s + 1u == steps;
            double e;
            if (!tenor_basket_exercise(bk, nu, strike, sign, coef + (tenor_u64)s * nb, nb, last, &e)) continue;
            const double d = TENOR_MATH(exp)(-rate * dt * (double)(s + 1u));
            for (tenor_u32 i = 0; i < n; ++i) {  // the payoff's derivative along a tangent: sign dB
                const double ws = assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT] * spots[i];
                for (tenor_u32 q = 0; q + 1u < TENOR_BASKET_TANGENTS; ++q) {
                    acc[q * n + i] = d * sign * (ws * tx[i * TENOR_BASKET_TANGENTS + q]);
                }
            }
            for (tenor_u32 i = 0; i < n; ++i) {
                for (tenor_u32 j = i + 1u; j < n; ++j) {
                    const tenor_u32 pi = tenor_basket_pair(i, j, n);
                    double db = 0.0;
                    for (tenor_u32 k = 0; k < n; ++k) {
                        double dxk = 0.0;
                        for (tenor_u32 m = 0; m <= k; ++m) {
                            dxk += dfactor[((tenor_u64)pi * n + k) * n + m] * g[k * (k + 1u) / 2u + m];
                        }
                        db += assets[k * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT] * spots[k] * dxk;
                    }
                    acc[4u * n + pi] = d * sign * db;
                }
            }
            double db = 0.0;  // theta: minus the maturity's derivative of D e
            for (tenor_u32 i = 0; i < n; ++i) {
                db += assets[i * TENOR_BASKET_RECORD + TENOR_BASKET_WEIGHT] * spots[i] *
                      tx[i * TENOR_BASKET_TANGENTS + TENOR_BASKET_TANGENTS - 1u];
            }
            const double dd = -rate * (double)(s + 1u) / (double)steps * d;
            acc[rows - 1u] = -(dd * e + d * sign * db);
            break;
        }
        for (tenor_u32 r = 0; r < rows; ++r) contrib[(tenor_u64)r * paths + p] = acc[r];
    }
#endif
}

// basket_moments (see its kernel.toml).
TENOR_DEVICE_INLINE void tenor_basket_moments(TENOR_GLOBAL double* __restrict__ out, TENOR_GLOBAL const double* __restrict__ values,
                                              tenor_u32 rows, tenor_u64 paths, tenor_u64 chunk, tenor_u64 items) {
    const tenor_u64 chunks = chunk == 0u ? 0u : (paths + chunk - 1u) / chunk;
    TENOR_FOR_ITEM_PER_THREAD(g, items) {
        double s1 = 0.0, s2 = 0.0;
        if (chunks > 0u && g / chunks < (tenor_u64)rows) {
            const tenor_u64 r = g / chunks, c = g % chunks;
            const tenor_u64 end = paths < (c + 1u) * chunk ? paths : (c + 1u) * chunk;
            for (tenor_u64 q = c * chunk; q < end; ++q) {
                const double x = values[r * paths + q];
                s1 += x;
                s2 += x * x;
            }
        }
        out[2u * g] = s1;
        out[2u * g + 1u] = s2;
    }
}
