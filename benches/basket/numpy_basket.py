#!/usr/bin/env python3
"""The basket job (docs/basket-job.md) in numpy, the same method as Tenor's (ADR 0031), for the
CPU comparison of docs/results/basket-cpu-*.md: Andersen's QE per asset with the 2N normals
correlated by the Cholesky factor in the order (W_v, W_S), U_v = Phi(Z_v) in the exponential
branch; Longstaff-Schwartz on the basket (regression of the in-the-money paths on 1, xi, xi^2,
nu, xi nu, xi^3 on one set of paths, valuation on an independent set); pathwise deltas, gammas
from 2N spot-rescaled scenarios, rho by rescaling, vegas/model vegas/theta from bumped copies of
each asset following the base path's QE branches and exercise date, correlation vegas through
the Cholesky factor's derivative. Vectorised over paths, one Python loop over steps. Numbers from
numpy's PCG64 (not Philox): the estimates agree with Tenor's statistically, not bitwise.

    numpy_basket.py JOB.toml [--paths N] [--steps N] [--seed S] [--no-greeks]

Prints `greek,asset,other,value,stderr` rows and `seconds <wall>` on stderr.
"""
import argparse
import math
import sys
import time
import tomllib

import numpy as np

H = 1e-5  # relative bump of the pathwise differences
GAMMA = 0.02  # relative spot bump of the gammas


def record(spot, w, drift, v0, kappa, theta, xi, rho, dt):
    e = math.exp(-kappa * dt)
    k1 = 0.5 * dt * (kappa * rho / xi - 0.5) - rho / xi
    k2 = 0.5 * dt * (kappa * rho / xi - 0.5) + rho / xi
    k3 = 0.5 * dt * (1 - rho * rho)
    return dict(x0=math.log(spot), v0=v0, w=w, drift=drift * dt, theta=theta, e=e,
                s2a=xi * xi * e * (1 - e) / kappa, s2b=theta * xi * xi * (1 - e) ** 2 / (2 * kappa),
                k1=k1, k2=k2, k3=k3, a=k2 + 0.5 * k3, k0p=-rho * kappa * theta * dt / xi, spot=spot)


_erfc = np.frompyfunc(math.erfc, 1, 1)


def qe(c, v, zv, zx, force=None):
    """One QE step: (v_next, dlogS, branches, sqrt(K3 v + K4 v_next))."""
    m = c["theta"] + (v - c["theta"]) * c["e"]
    psi = (v * c["s2a"] + c["s2b"]) / (m * m)
    expo = psi > 1.5 if force is None else (force & 1) != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        r = 2.0 / psi
        b2 = r - 1.0 + np.sqrt(r) * np.sqrt(np.maximum(r - 1.0, 0.0))
        a = m / (1.0 + b2)
        vq = a * (np.sqrt(b2) + zv) ** 2
        plain_q = 2 * c["a"] * a >= 1.0
        k0q = -c["a"] * b2 * a / (1 - 2 * c["a"] * a) + 0.5 * np.log(1 - 2 * c["a"] * a) - (c["k1"] + 0.5 * c["k3"]) * v
        p0 = (psi - 1.0) / (psi + 1.0)
        beta = (1.0 - p0) / m
        om = np.ones_like(v)
        if expo.any():
            om[expo] = 0.5 * _erfc(zv[expo] / math.sqrt(2.0)).astype(float)
        ve = np.where(om >= 1 - p0, 0.0, np.log((1 - p0) / om) / beta)
        plain_e = c["a"] >= beta
        k0e = -np.log(p0 + beta * (1 - p0) / (beta - c["a"])) - (c["k1"] + 0.5 * c["k3"]) * v
    vn = np.where(expo, ve, vq)
    plain = np.where(expo, plain_e, plain_q) if force is None else (force & 2) != 0
    k0 = np.where(plain, c["k0p"], np.where(expo, k0e, k0q))
    sq = np.sqrt(c["k3"] * v + c["k3"] * vn)
    dx = c["drift"] + k0 + c["k1"] * v + c["k2"] * vn + sq * zx
    return vn, dx, expo.astype(np.int8) | (plain.astype(np.int8) << 1), sq


def basis(xi, nu):
    return np.stack([np.ones_like(xi), xi, xi * xi, nu, xi * nu, xi * xi * xi])


def factor(full, rho, n):
    perm = [n + i for i in range(n)] + list(range(n))
    c = full[np.ix_(perm, perm)]
    low = np.linalg.cholesky(c)
    a = low.copy()
    for i in range(n):
        a[n + i] = (low[n + i] - rho[i] * low[i]) / math.sqrt(1 - rho[i] ** 2)
    return low, a


def dcholesky(lss, i, j):
    n = lss.shape[0]
    ei = np.zeros(n)
    ej = np.zeros(n)
    ei[i], ej[j] = 1, 1
    u, w = np.linalg.solve(lss, ei), np.linalg.solve(lss, ej)
    x = np.outer(u, w) + np.outer(w, u)
    phi = np.tril(x) - 0.5 * np.diag(np.diag(x))
    return lss @ phi


def main():
    p = argparse.ArgumentParser()
    p.add_argument("job")
    p.add_argument("--paths", type=int)
    p.add_argument("--steps", type=int)
    p.add_argument("--seed", type=int)
    p.add_argument("--no-greeks", action="store_true")
    args = p.parse_args()
    with open(args.job, "rb") as f:
        job = tomllib.load(f)
    t0 = time.perf_counter()
    sim = job.get("simulation", {})
    paths = args.paths or sim.get("paths", 25000)
    steps = args.steps or sim.get("steps", 252)
    seed = args.seed if args.seed is not None else sim.get("seed", 42)
    greeks = not args.no_greeks
    opt, assets = job["option"], job["asset"]
    n = len(assets)
    K, T, r = opt["strike"], opt["maturity"], job["market"]["rate"]
    sign = 1.0 if opt["payoff"] == "call" else -1.0
    w = np.array(opt["weights"], dtype=float)
    rho = [a["rho"] for a in assets]
    prices = np.array(job.get("correlation", {}).get("prices", [[1.0]]), dtype=float)
    full = job.get("correlation", {}).get("full")
    if full is None:
        full = np.zeros((2 * n, 2 * n))
        full[:n, :n] = prices
        full[n:, n:] = np.eye(n)
        for i in range(n):
            full[i, n + i] = full[n + i, i] = rho[i]
    full = np.array(full, dtype=float)
    dt = T / steps
    rec = [record(a["spot"], w[i], r - a["dividend"], a["v0"], a["kappa"], a["theta"], a["xi"], a["rho"], dt)
           for i, a in enumerate(assets)]
    low, A = factor(full, rho, n)
    american = opt["exercise"] == "american"
    coef = np.zeros((steps, 6))
    coef[:, 0] = np.inf
    df = math.exp(-r * dt)

    def path_set(set_id):
        return np.random.Generator(np.random.PCG64([seed, set_id]))

    def step_all(rng, x, v):
        eps = rng.standard_normal((2 * n, paths))
        z = A @ eps
        out = []
        for i in range(n):
            vn, dx, b, sq = qe(rec[i], v[i], z[i], z[n + i])
            v[i] = vn
            x[i] += dx
            out.append((b, sq))
        return eps, z, out

    # Regression on path set 0.
    if american and steps > 1:
        rng = path_set(0)
        x = np.array([[c["x0"]] * paths for c in rec])
        v = np.array([[c["v0"]] * paths for c in rec])
        bsk = np.empty((steps, paths))
        feat = np.empty((steps, paths))
        for s in range(steps):
            step_all(rng, x, v)
            S = np.exp(x)
            bsk[s] = w @ S
            feat[s] = (w[:, None] * S * v).sum(0) / K
        cash = np.maximum(sign * (bsk[-1] - K), 0.0)
        for s in range(steps - 2, -1, -1):
            y = df * cash
            e = np.maximum(sign * (bsk[s] - K), 0.0)
            itm = e > 0
            if itm.sum() >= 12:
                X = basis(bsk[s][itm] / K - 1.0, feat[s][itm])
                beta, *_ = np.linalg.lstsq(X.T, y[itm], rcond=None)
                coef[s] = beta
                cont = beta @ basis(bsk[s] / K - 1.0, feat[s])
                cash = np.where(itm & (e > cont), e, y)
            else:
                cash = y

    # Valuation on path set 1.
    rng = path_set(1)
    x = np.array([[c["x0"]] * paths for c in rec])
    v = np.array([[c["v0"]] * paths for c in rec])
    spot0 = np.array([c["spot"] for c in rec])
    price = np.zeros(paths)
    delta = np.zeros((n, paths))
    gamma = np.zeros((n, n, paths))
    rhov = np.zeros(paths)
    alive = np.ones(paths, bool)
    scen_alive = np.ones((n, 2, paths), bool) if greeks else None
    if greeks:
        bumps = []  # per asset: records of sqrt(v0), kappa, theta, xi, maturity and sizes
        dtb = (T * (1 + H)) / steps
        for i, a in enumerate(assets):
            sd = math.sqrt(a["v0"])
            mk = lambda v0, k, t, xi, d: record(a["spot"], w[i], r - a["dividend"], v0, k, t, xi, a["rho"], d)
            bumps.append([(mk((sd * (1 + H)) ** 2, a["kappa"], a["theta"], a["xi"], dt), H * sd),
                          (mk(a["v0"], a["kappa"] * (1 + H), a["theta"], a["xi"], dt), H * a["kappa"]),
                          (mk(a["v0"], a["kappa"], a["theta"] * (1 + H), a["xi"], dt), H * a["theta"]),
                          (mk(a["v0"], a["kappa"], a["theta"], a["xi"] * (1 + H), dt), H * a["xi"]),
                          (mk(a["v0"], a["kappa"], a["theta"], a["xi"], dtb), H * T)])
        cv = np.array([[[b[0]["v0"]] * paths for b in bumps[i]] for i in range(n)])
        cdx = np.zeros((n, 5, paths))
        G = np.zeros((n, n, paths))
        sens = np.zeros((4, n, paths))
        theta_t = np.zeros(paths)
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        lss = low[n:, n:]
        dA = [dcholesky(lss, i, j) / np.sqrt(1 - np.array(rho) ** 2)[:, None] for i, j in pairs]
        corr = np.zeros((len(pairs), paths))
    for s in range(steps):
        eps = rng.standard_normal((2 * n, paths))
        z = A @ eps
        for i in range(n):
            vn, dx, br, sq = qe(rec[i], v[i], z[i], z[n + i])
            if greeks:
                for q in range(5):
                    cvn, cdxn, _, _ = qe(bumps[i][q][0], cv[i, q], z[i], z[n + i], br)
                    cv[i, q] = cvn
                    cdx[i, q] += np.where(alive, cdxn - dx, 0.0)
                G[i, : i + 1] += np.where(alive, sq * eps[n: n + i + 1], 0.0)
            v[i] = vn
            x[i] += dx
        S = np.exp(x)
        B = w @ S
        nu = (w[:, None] * S * v).sum(0) / K
        last = s == steps - 1
        t = dt * (s + 1)
        d = math.exp(-r * t)

        def decide(b, nuv):
            e = np.maximum(sign * (b - K), 0.0)
            if last:
                return e > 0, e
            return (e > 0) & (e > coef[s] @ basis(b / K - 1.0, nuv)), e

        ex, e = decide(B, nu)
        ex &= alive
        price += np.where(ex, d * e, 0.0)
        R = S / spot0[:, None]
        if greeks:
            delta += np.where(ex, d * sign * w[:, None] * R, 0.0)
            rhov += np.where(ex, d * t * sign * K, 0.0)
            for i in range(n):
                db = w[i] * S[i] * np.expm1(cdx[i, :4])
                eh = np.maximum(sign * (B + db - K), 0.0)
                change = np.where((e > 0) & (eh > 0), sign * db, eh - e)
                sens[:, i] += np.where(ex, d * change / np.array([b[1] for b in bumps[i][:4]])[:, None], 0.0)
            dbt = (w[:, None] * S * np.expm1(cdx[:, 4])).sum(0)
            eh = np.maximum(sign * (B + dbt - K), 0.0)
            change = np.where((e > 0) & (eh > 0), sign * dbt, eh - e)
            dd = d * math.expm1(-r * H * T * (s + 1) / steps)
            theta_t += np.where(ex, -(dd * (e + change) + d * change) / (H * T), 0.0)
            for k, da in enumerate(dA):
                dxk = (np.tril(da)[:, :, None] * G).sum(1)
                corr[k] += np.where(ex, d * sign * (w[:, None] * S * dxk).sum(0), 0.0)
            for j in range(n):
                for h, sgn in ((0, 1.0), (1, -1.0)):
                    ds = sgn * GAMMA * w[j] * S[j]
                    exs, _ = decide(B + ds, nu + ds * v[j] / K)
                    exs &= scen_alive[j, h]
                    scale = sgn * d * sign / (2 * GAMMA * spot0[j])
                    gamma[j] += np.where(exs, scale * w[:, None] * R, 0.0)
                    scen_alive[j, h] &= ~exs
        alive &= ~ex
        if not alive.any() and (not greeks or not scen_alive.any()):
            break
    names = [a["name"] for a in assets]
    rows = []

    def add(g, a, b, vals):
        rows.append((g, a, b, vals.mean(), vals.std(ddof=1) / math.sqrt(paths)))

    add("price", "", "", price)
    if greeks:
        for i in range(n):
            add("delta", names[i], "", delta[i])
        for i in range(n):
            add("gamma", names[i], "", gamma[i, i])
        for i, j in pairs:
            add("cross_gamma", names[i], names[j], 0.5 * (gamma[i, j] + gamma[j, i]))
        for q, g in enumerate(["vega", "model_vega_kappa", "model_vega_theta", "model_vega_xi"]):
            for i in range(n):
                add(g, names[i], "", sens[q, i])
        for k, (i, j) in enumerate(pairs):
            add("correlation_vega", names[i], names[j], corr[k])
        add("rho", "", "", rhov)
        add("theta", "", "", theta_t)
    print("greek,asset,other,value,stderr")
    for g, a, b, m, se in rows:
        print(f"{g},{a},{b},{float(m)!r},{float(se)!r}")
    print(f"seconds {time.perf_counter() - t0:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
