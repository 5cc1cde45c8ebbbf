/* The C test program of libtenor (run by scripts/c-abi-test, part of scripts/test).
 * Checks, each against an independent value:
 *  - a European call and put priced through the C ABI equal Haug's published values
 *    (The Complete Guide to Option Pricing Formulas, 2nd ed., p. 4: S=60 K=65 T=0.25 r=0.08 b=r
 *    sigma=0.30 call 2.1334; ../shared/oracles/european_haug.csv) to 4 decimals;
 *  - put-call parity C - P = S e^{-qT} - K e^{-rT} to 1e-12;
 *  - a Monte Carlo arithmetic Asian call lies, within 4 standard errors, between its bounds in
 *    closed form (computed here): the geometric-average call below (AM >= GM; Kemna and Vorst
 *    1990) and that call plus e^{-rT} (E[A] - E[G]) above ((A - K)^+ - (G - K)^+ <= A - G);
 *    priced twice with the same seed gives bitwise the same price (determinism) and a
 *    different seed a different one, both with an OK status;
 *  - bad input: null name, unknown backend, odd paths, a negative vol in one row (that row
 *    refused with TENOR_STATUS_INVALID_ARGUMENT, the others priced), each with the message;
 *  - kind and barrier-type codes read from the tables: a down-and-out call through the C ABI
 *    equals Haug's value (p. 154 table, ../shared/oracles/barrier_haug.csv: S=100 K=90 H=95
 *    rebate 3 T=0.5 r=0.08 q=0.04 sigma=0.25, 9.0246) to 1e-4, and an unknown kind or
 *    barrier-type code is refused with the trade's index and field, the other rows priced.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tenor.h"

static int failures = 0;
#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fprintf(stderr, "\n");                         \
            failures++;                                    \
        }                                                  \
    } while (0)

static double norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* The discretely monitored geometric-average call on fixings t_j = T j / n, j = 1..n
 * (docs/portfolio-csv.md): ln G is normal with mean m = ln S + (r - q - vol^2 / 2) mean(t_j)
 * and variance v = vol^2 / n^2 sum_{i,j} min(t_i, t_j); the call is
 * e^{-rT} (e^{m + v/2} N(d1) - K N(d1 - sqrt v)), d1 = (m - ln K + v) / sqrt v.
 * Also returns E[A] - E[G], the arithmetic average's mean S mean(e^{(r-q) t_j}) less e^{m + v/2}. */
static double geometric_asian_call(double s, double k, double t, double r, double q, double vol, int n,
                                   double *mean_gap) {
    double mean_t = 0.0, v = 0.0, mean_a = 0.0;
    for (int i = 1; i <= n; i++) {
        double ti = t * i / n;
        mean_t += ti / n;
        mean_a += s * exp((r - q) * ti) / n;
        for (int j = 1; j <= n; j++) v += vol * vol * fmin(ti, t * j / n) / ((double)n * n);
    }
    double m = log(s) + (r - q - 0.5 * vol * vol) * mean_t;
    double d1 = (m - log(k) + v) / sqrt(v);
    *mean_gap = mean_a - exp(m + 0.5 * v);
    return exp(-r * t) * (exp(m + 0.5 * v) * norm_cdf(d1) - k * norm_cdf(d1 - sqrt(v)));
}

static TenorTrade vanilla(TenorKind kind, uint32_t option_type, double spot, double strike, double maturity, double rate,
                          double dividend, double vol) {
    TenorTrade t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.option_type = option_type;
    t.spot = spot;
    t.strike = strike;
    t.maturity = maturity;
    t.rate = rate;
    t.dividend = dividend;
    t.vol = vol;
    return t;
}

int main(void) {
    TenorDevice *dev = NULL;
    TenorStatus s = tenor_open(NULL, &dev);
    CHECK(s == TENOR_STATUS_INVALID_ARGUMENT, "null name gave %d", (int)s);
    CHECK(strstr(tenor_last_error(), "`name` is null") != NULL, "message: %s", tenor_last_error());

    s = tenor_open("no-such-backend", &dev);
    CHECK(s == TENOR_STATUS_BACKEND, "unknown backend gave %d", (int)s);
    CHECK(strstr(tenor_last_error(), "no-such-backend") != NULL, "message: %s", tenor_last_error());

    s = tenor_open("cpu", &dev);
    CHECK(s == TENOR_STATUS_OK && dev != NULL, "open cpu: %d %s", (int)s, tenor_last_error());
    if (dev == NULL) return 1;
    char name[16];
    CHECK(tenor_device_backend(dev, name, sizeof name) == TENOR_STATUS_OK && strcmp(name, "cpu") == 0, "backend %s", name);

    /* Haug p. 4: call 2.1334 (b = r, no dividend). */
    TenorTrade book[4];
    book[0] = vanilla(TENOR_KIND_EUROPEAN, 0, 60.0, 65.0, 0.25, 0.08, 0.0, 0.30);
    book[1] = vanilla(TENOR_KIND_EUROPEAN, 1, 60.0, 65.0, 0.25, 0.08, 0.0, 0.30);
    book[2] = vanilla(TENOR_KIND_ASIAN_ARITH, 0, 100.0, 100.0, 1.0, 0.05, 0.0, 0.2);
    book[2].fixings = 12;
    book[3] = vanilla(TENOR_KIND_EUROPEAN, 0, 100.0, 100.0, 1.0, 0.05, 0.0, -0.2); /* bad vol */
    TenorPriced out[4];
    TenorBookConfig cfg = tenor_book_config_default();
    CHECK(cfg.paths == 100000 && cfg.seed == 42 && cfg.greeks == 1, "defaults");
    cfg.paths = 20000;
    s = tenor_price_book(dev, book, 4, &cfg, out);
    CHECK(s == TENOR_STATUS_PRICING, "a bad row gives TENOR_STATUS_PRICING, got %d", (int)s);
    CHECK(strstr(tenor_last_error(), "trade 3") != NULL && strstr(tenor_last_error(), "vol") != NULL, "message: %s",
          tenor_last_error());
    CHECK(out[3].status == TENOR_STATUS_INVALID_ARGUMENT && isnan(out[3].price), "row 3 refused");
    CHECK(out[0].status == TENOR_STATUS_OK && out[0].method == TENOR_METHOD_ANALYTIC, "row 0 priced");
    CHECK(fabs(out[0].price - 2.1334) < 5e-5, "Haug call 2.1334, got %.6f", out[0].price);
    CHECK(isnan(out[0].std_error), "closed form has no standard error");
    double parity = 60.0 - 65.0 * exp(-0.08 * 0.25);
    CHECK(fabs((out[0].price - out[1].price) - parity) < 1e-12, "put-call parity: %.15f vs %.15f",
          out[0].price - out[1].price, parity);
    CHECK(out[2].status == TENOR_STATUS_OK && out[2].method == TENOR_METHOD_MC && out[2].std_error > 0.0, "asian mc");
    double gap = 0.0;
    double geo = geometric_asian_call(100.0, 100.0, 1.0, 0.05, 0.0, 0.2, 12, &gap);
    double upper = geo + exp(-0.05) * gap;
    printf("asian: geometric %.6f <= arithmetic %.6f +/- %.6f <= %.6f\n", geo, out[2].price, out[2].std_error, upper);
    CHECK(geo > 5.0 && gap > 0.0, "geometric call %.6f, E[A] - E[G] %.6f", geo, gap);
    CHECK(out[2].price >= geo - 4.0 * out[2].std_error && out[2].price <= upper + 4.0 * out[2].std_error,
          "arithmetic Asian %.6f +/- %.6f outside [%.6f, %.6f]", out[2].price, out[2].std_error, geo, upper);

    /* Same seed: bitwise the same Monte Carlo price; another seed: a different one. */
    TenorPriced again[4];
    s = tenor_price_book(dev, book, 3, &cfg, again);
    CHECK(s == TENOR_STATUS_OK && again[2].status == TENOR_STATUS_OK, "again: %d %s", (int)s, tenor_last_error());
    CHECK(memcmp(&again[2].price, &out[2].price, sizeof(double)) == 0, "deterministic: %.17g vs %.17g", again[2].price,
          out[2].price);
    cfg.seed = 7;
    s = tenor_price_book(dev, book, 3, &cfg, again);
    CHECK(s == TENOR_STATUS_OK && again[2].status == TENOR_STATUS_OK, "seed 7: %d %s", (int)s, tenor_last_error());
    CHECK(again[2].price != out[2].price && fabs(again[2].price - out[2].price) < 6.0 * out[2].std_error,
          "another seed: %.6f vs %.6f", again[2].price, out[2].price);

    cfg.paths = 7;
    s = tenor_price_book(dev, book, 1, &cfg, out);
    CHECK(s == TENOR_STATUS_INVALID_ARGUMENT && strstr(tenor_last_error(), "paths") != NULL, "odd paths: %d %s", (int)s,
          tenor_last_error());
    s = tenor_price_book(dev, NULL, 1, NULL, out);
    CHECK(s == TENOR_STATUS_INVALID_ARGUMENT, "null trades");

    /* Every method has its own code: an American put by finite differences (engine 0) and by
     * least squares Monte Carlo (engine 1), within 4 standard errors plus LSM's low bias of a
     * few cents; a call at expiry is its payoff, 110 - 100 = 10, by either engine. */
    TenorTrade more[2];
    more[0] = vanilla(TENOR_KIND_AMERICAN, 1, 100.0, 100.0, 1.0, 0.05, 0.0, 0.2);
    more[1] = vanilla(TENOR_KIND_EUROPEAN, 0, 110.0, 100.0, 0.0, 0.05, 0.0, 0.2);
    TenorPriced fd[2], lsm[2];
    cfg = tenor_book_config_default();
    cfg.paths = 20000;
    cfg.greeks = 0;
    s = tenor_price_book(dev, more, 2, &cfg, fd);
    CHECK(s == TENOR_STATUS_OK && fd[0].method == TENOR_METHOD_PDE, "american by fd: %d %d", (int)s, (int)fd[0].method);
    CHECK(fd[1].method == TENOR_METHOD_INTRINSIC && fd[1].price == 10.0, "expiry: method %d price %.17g",
          (int)fd[1].method, fd[1].price);
    cfg.engine = 1;
    s = tenor_price_book(dev, more, 2, &cfg, lsm);
    CHECK(s == TENOR_STATUS_OK && lsm[0].method == TENOR_METHOD_LSM && lsm[0].std_error > 0.0, "american by lsm: %d %d",
          (int)s, (int)lsm[0].method);
    CHECK(fabs(lsm[0].price - fd[0].price) < 4.0 * lsm[0].std_error + 0.03, "lsm %.6f +/- %.6f vs fd %.6f", lsm[0].price,
          lsm[0].std_error, fd[0].price);
    CHECK(lsm[1].method == TENOR_METHOD_INTRINSIC && lsm[1].price == 10.0, "expiry under mc: method %d",
          (int)lsm[1].method);

    TenorTrade coded[3];
    coded[0] = vanilla(TENOR_KIND_BARRIER, 0, 100.0, 90.0, 0.5, 0.08, 0.04, 0.25);
    coded[0].barrier = 95.0;
    coded[0].barrier_type = 0; /* down_out */
    coded[0].rebate = 3.0;
    coded[1] = vanilla((TenorKind)9, 0, 100.0, 100.0, 1.0, 0.05, 0.0, 0.2);
    coded[2] = coded[0];
    coded[2].barrier_type = 7;
    TenorPriced by_code[3];
    cfg = tenor_book_config_default();
    cfg.greeks = 0;
    s = tenor_price_book(dev, coded, 3, &cfg, by_code);
    CHECK(s == TENOR_STATUS_PRICING, "unknown codes give TENOR_STATUS_PRICING, got %d", (int)s);
    CHECK(strstr(tenor_last_error(), "trade 1") != NULL && strstr(tenor_last_error(), "kind") != NULL,
          "message: %s", tenor_last_error());
    CHECK(by_code[0].status == TENOR_STATUS_OK && by_code[0].method == TENOR_METHOD_ANALYTIC &&
              fabs(by_code[0].price - 9.0246) < 1e-4,
          "Haug down-and-out 9.0246, got %.6f (method %d)", by_code[0].price, (int)by_code[0].method);
    CHECK(by_code[1].status == TENOR_STATUS_INVALID_ARGUMENT && by_code[1].method == TENOR_METHOD_NOT_PRICED,
          "unknown kind refused: %d", (int)by_code[1].status);
    CHECK(by_code[2].status == TENOR_STATUS_INVALID_ARGUMENT, "unknown barrier type refused: %d",
          (int)by_code[2].status);

    tenor_close(dev);
    tenor_close(NULL);
    if (failures == 0) printf("c-abi: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
