"""Market tools from Python, checked against definitions: the bootstrapped Treasury curve
prices every published par bond at par; the chain's implied vols reprice the mid quotes by
Black's formula."""

import csv
import math

import numpy as np
import pytest

import tenor
from conftest import need


def test_treasury_curve_prices_par_bonds_at_par(shared):
    f = need(shared / "data" / "rates" / "us_treasury_par_yield_2024.csv")
    with open(f, newline="") as fh:
        row = next(csv.DictReader(fh))  # the file's first row is its latest date
    assert row["Date"] == "2024-12-31"
    for label, tenor_years in [("2 Yr", 2.0), ("5 Yr", 5.0), ("10 Yr", 10.0)]:
        y = float(row[label]) / 100.0
        times = [0.5 * i for i in range(1, int(2 * tenor_years) + 1)]
        curve = tenor.treasury_curve(f, "2024-12-31", maturities=times)
        assert curve.attrs["date"] == "2024-12-31"
        d = curve["discount"].to_numpy()
        price = float(np.sum(y / 2.0 * d) + d[-1])
        assert abs(price - 1.0) < 1e-9, (label, price)
        assert np.allclose(d, np.exp(-curve["zero_rate"] * curve["maturity"]), rtol=0, atol=1e-14)
    # a bill: the 6-month zero rate is the bond-equivalent yield continuously compounded
    y6 = float(row["6 Mo"]) / 100.0
    z = tenor.treasury_curve(f, "2024-12-31", maturities=[0.5])["zero_rate"].iloc[0]
    assert abs(z - 2.0 * math.log(1.0 + y6 / 2.0)) < 1e-12


def test_treasury_bad_file_names_location(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("Date,1 Mo,2 Mo\n12/31/2024,4.4,x\n")
    with pytest.raises(tenor.InputError) as info:
        tenor.treasury_curve(p)
    assert info.value.file == str(p) and info.value.line == 2


def black(forward, strike, discount, vol, t, call):
    sd = vol * math.sqrt(t)
    d1 = math.log(forward / strike) / sd + 0.5 * sd
    d2 = d1 - sd
    n = lambda x: 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))  # noqa: E731
    if call:
        return discount * (forward * n(d1) - strike * n(d2))
    return discount * (strike * n(-d2) - forward * n(-d1))


def test_surface_vols_reprice_the_mids(root):
    chain = need(root / "examples" / "data" / "spx_cboe_2025-10-01")
    s = tenor.open("cpu").surface(chain)
    q = s.quotes
    solved = q[q["implied_vol"].notna()]
    assert len(solved) > 1000 and len(s.slices) > 5
    worst = 0.0
    for r in solved.sample(300, random_state=1).itertuples():
        p = black(r.forward, r.strike, r.discount, r.implied_vol, r.maturity, r.option_type == "call")
        worst = max(worst, abs(p - r.mid) / max(r.mid, 1e-8))
    assert worst < 1e-6, worst
    assert (q.loc[q["implied_vol"].isna(), "reason"] != "").all()
    assert s.slices["butterfly_free"].dtype == bool
