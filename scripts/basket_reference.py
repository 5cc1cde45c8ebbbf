#!/usr/bin/env python3
"""Independent references for the basket job (docs/basket.md), written without Tenor's code.

    basket_reference.py quantlib JOB.toml PATHS CALIBRATION SEED
        QuantLib 1.44's MCAmericanBasketEngine (pseudo-random, Longstaff-Schwartz on polynomials
        of the asset prices, CALIBRATION regression paths, PATHS valuation paths) on the job's
        option with each asset a Black-Scholes-Merton process of volatility sqrt(v0) (the job's
        xi -> 0, v0 = theta limit), correlated by the job's price correlations, exercise at each
        of the job's steps. Prints `price VALUE STDERR`.

    basket_reference.py euler JOB.toml PATHS STEPS SEED
        The job's European option under correlated Heston by a full-truncation Euler scheme
        (Lord, Koekkoek and van Dijk 2010) on STEPS steps: x += (r - q - v+/2) dt + sqrt(v+ dt) Z_S,
        v += kappa (theta - v+) dt + xi sqrt(v+ dt) Z_v with v+ = max(v, 0), the 2N normals
        correlated by the Cholesky factor of the job's full 2N x 2N factor correlation (numpy's).
        The price, deltas, vegas (by sqrt(v0)), correlation vegas, rho and theta by central
        differences with common random numbers (the same normals for every bumped run; the
        model vegas are compared with the characteristic function instead), standard errors
        from the per-path differences. Prints one line per value:
        `greek asset other value stderr` (`-` for no asset).

Both need numpy and QuantLib from scripts/basket-venv.
"""
import math
import sys
import tomllib

import numpy as np


def load(path):
    with open(path, "rb") as f:
        job = tomllib.load(f)
    assets = job["asset"]
    n = len(assets)
    prices = job.get("correlation", {}).get("prices", [[1.0]])
    full = job.get("correlation", {}).get("full")
    if full is None:
        full = [[0.0] * (2 * n) for _ in range(2 * n)]
        for i in range(n):
            for j in range(n):
                full[i][j] = prices[i][j]
            full[n + i][n + i] = 1.0
            full[i][n + i] = full[n + i][i] = assets[i]["rho"]
    return job, assets, np.array(prices, dtype=float), np.array(full, dtype=float)


def quantlib(path, paths, calibration, seed):
    import QuantLib as ql

    job, assets, prices, _ = load(path)
    opt = job["option"]
    today = ql.Date(5, ql.December, 2026)
    ql.Settings.instance().evaluationDate = today
    dc = ql.Actual365Fixed()
    days = int(round(opt["maturity"] * 365))
    maturity = today + days
    t = dc.yearFraction(today, maturity)
    rate = ql.YieldTermStructureHandle(ql.FlatForward(today, job["market"]["rate"], dc))
    procs = []
    for a in assets:
        spot = ql.QuoteHandle(ql.SimpleQuote(a["spot"]))
        div = ql.YieldTermStructureHandle(ql.FlatForward(today, a["dividend"], dc))
        vol = ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(), math.sqrt(a["v0"]), dc))
        procs.append(ql.BlackScholesMertonProcess(spot, div, rate, vol))
    n = len(assets)
    corr = ql.Matrix(n, n)
    for i in range(n):
        for j in range(n):
            corr[i][j] = float(prices[i][j])
    process = ql.StochasticProcessArray(procs, corr)
    kind = ql.Option.Put if opt["payoff"] == "put" else ql.Option.Call
    payoff = ql.AverageBasketPayoff(ql.PlainVanillaPayoff(kind, opt["strike"]), ql.Array(list(opt["weights"])))
    if opt["exercise"] == "american":
        exercise = ql.AmericanExercise(today, maturity)
    else:
        exercise = ql.EuropeanExercise(maturity)
    option = ql.BasketOption(payoff, exercise)
    steps = int(job.get("simulation", {}).get("steps", 252))
    option.setPricingEngine(
        ql.MCAmericanBasketEngine(
            process,
            "pseudorandom",
            timeSteps=steps,
            requiredSamples=paths,
            seed=seed,
            nCalibrationSamples=calibration,
            polynomOrder=3,
        )
    )
    print(f"price {option.NPV()!r} {option.errorEstimate()!r}")
    print(f"years {t!r}", file=sys.stderr)


def euler_payoffs(job, assets, full, steps, paths, seed, bump):
    """Discounted European payoffs per path for the job with `bump` applied (a dict)."""
    opt = job["option"]
    n = len(assets)
    rate = job["market"]["rate"] + bump.get("rate", 0.0)
    t = opt["maturity"] + bump.get("maturity", 0.0)
    dt = t / steps
    c = full.copy()
    if "corr" in bump:
        (i, j), d = bump["corr"]
        c[i, j] += d
        c[j, i] += d
    chol = np.linalg.cholesky(c)
    spot = np.array([a["spot"] for a in assets]) * (1.0 + bump.get("spot", np.zeros(n)))
    sd0 = np.sqrt(np.array([a["v0"] for a in assets])) * (1.0 + bump.get("sd0", np.zeros(n)))
    kappa = np.array([a["kappa"] for a in assets]) * (1.0 + bump.get("kappa", np.zeros(n)))
    theta = np.array([a["theta"] for a in assets]) * (1.0 + bump.get("theta", np.zeros(n)))
    xi = np.array([a["xi"] for a in assets]) * (1.0 + bump.get("xi", np.zeros(n)))
    q = np.array([a["dividend"] for a in assets])
    # The same normals for every bumped run: one generator from the seed, drawn step by step.
    rng = np.random.Generator(np.random.PCG64(seed))
    x = np.tile(np.log(spot)[:, None], (1, paths))
    v = np.tile((sd0 * sd0)[:, None], (1, paths))
    sq = math.sqrt(dt)
    for _ in range(steps):
        w = chol @ rng.standard_normal((2 * n, paths))
        vp = np.maximum(v, 0.0)
        rv = np.sqrt(vp)
        x += (rate - q[:, None] - 0.5 * vp) * dt + rv * sq * w[:n]
        v += kappa[:, None] * (theta[:, None] - vp) * dt + xi[:, None] * rv * sq * w[n:]
    basket = np.array(opt["weights"]) @ np.exp(x)
    sign = 1.0 if opt["payoff"] == "call" else -1.0
    return math.exp(-rate * t) * np.maximum(sign * (basket - opt["strike"]), 0.0)


def euler(path, paths, steps, seed):
    job, assets, _, full = load(path)
    if job["option"]["exercise"] != "european":
        raise SystemExit("euler: European options only")
    n = len(assets)
    base = euler_payoffs(job, assets, full, steps, paths, seed, {})
    out = [("price", "-", "-", base.mean(), base.std(ddof=1) / math.sqrt(paths))]

    def diff(up, dn, size):
        d = euler_payoffs(job, assets, full, steps, paths, seed, up) - euler_payoffs(job, assets, full, steps, paths, seed, dn)
        d /= 2 * size
        return d.mean(), d.std(ddof=1) / math.sqrt(paths)

    h = 0.01
    for i in range(n):
        e = np.zeros(n)
        e[i] = h
        for greek, key, size in [
            ("delta", "spot", h * assets[i]["spot"]),
            ("vega", "sd0", h * math.sqrt(assets[i]["v0"])),
        ]:
            m, se = diff({key: e}, {key: -e}, size)
            out.append((greek, str(i), "-", m, se))
    for i in range(n):
        for j in range(i + 1, n):
            m, se = diff({"corr": ((i, j), 0.01)}, {"corr": ((i, j), -0.01)}, 0.01)
            out.append(("correlation_vega", str(i), str(j), m, se))
    m, se = diff({"rate": 1e-3}, {"rate": -1e-3}, 1e-3)
    out.append(("rho", "-", "-", m, se))
    m, se = diff({"maturity": 1e-2}, {"maturity": -1e-2}, 1e-2)
    out.append(("theta", "-", "-", -m, se))
    for g, a, b, m, se in out:
        print(f"{g} {a} {b} {float(m)!r} {float(se)!r}")


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("quantlib", "euler"):
        raise SystemExit(__doc__)
    kind, path = sys.argv[1], sys.argv[2]
    a, b, seed = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    if kind == "quantlib":
        quantlib(path, a, b, seed)
    else:
        euler(path, a, b, seed)


if __name__ == "__main__":
    main()
