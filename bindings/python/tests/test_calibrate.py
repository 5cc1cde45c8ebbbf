"""Heston calibration from Python against `tenor calibrate heston` on the same chain and
settings (the command's defaults, a full fit of 120 quotes in under a second, and the small fit
of `tenor certify --suite quick`: 3 expiries of 4 quotes, 8 iterations), cpu backend: params.json equal bit for bit (but for the wall time), fit.csv equal
to its printed decimals; bad settings and files raise the documented exceptions."""

import csv
import json
import subprocess

import pytest

import tenor

from conftest import need

SMALL = {"slices": 3, "per_slice": 4, "max_iterations": 8}


def _cli(tenor_bin, chain, out, pricer, settings):
    flags = [x for k, v in settings.items() for x in (f"--{k.replace('_', '-')}", str(v))]
    subprocess.run(
        [str(tenor_bin), "calibrate", "heston", str(chain), "--out", str(out), "--backend", "cpu",
         "--pricer", pricer, *flags],
        check=True, capture_output=True)
    with open(out / "params.json") as f:
        params = json.load(f)
    with open(out / "fit.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return params, rows


@pytest.mark.parametrize("pricer,settings,quotes", [("port", SMALL, 12), ("host", SMALL, 12), ("port", {}, 120)])
def test_params_and_fit_equal_the_cli(root, tenor_bin, tmp_path, pricer, settings, quotes):
    chain = need(root / "examples" / "data" / "spx_cboe_2025-10-01")
    params, rows = _cli(tenor_bin, chain, tmp_path / "cal", pricer, settings)
    got = tenor.calibrate_heston(chain, backend="cpu", pricer=pricer, **settings)
    params.pop("wall_seconds")
    mine = dict(got.params)
    assert mine.pop("wall_seconds") >= 0.0
    mine["chain"] = params["chain"]  # the path as each was given
    assert mine == params  # floats compared exactly: the same doubles, JSON round trip
    assert params["quotes"] == quotes and len(got.fit) == quotes == len(rows)
    fmt = {"strike": None, "maturity": 6, "forward": 4, "discount": 8, "market_mid": 4, "model": 4, "error": 4,
           "market_iv": 6, "model_iv": 6, "iv_error_bp": 6}
    for (_, mine_row), cli in zip(got.fit.iterrows(), rows):
        assert mine_row["expiry"] == cli["expiry"] and mine_row["type"] == cli["type"]
        for c, d in fmt.items():
            v = float(mine_row[c])
            text = (repr(v) if v != int(v) else str(int(v))) if d is None else f"{v:.{d}f}"
            assert text == cli[c], (c, text, cli[c])


def test_on_an_open_device_and_repr(root):
    chain = need(root / "examples" / "data" / "spx_cboe_2025-10-01")
    a = tenor.calibrate_heston(chain, backend=tenor.open("cpu"), **SMALL)
    b = tenor.calibrate_heston(chain, **SMALL)
    assert a.params["v0"] == b.params["v0"] and a.params["backend"] == "cpu"
    assert "12 quotes" in repr(a)


def test_bad_settings_raise_parameter_error(root):
    chain = need(root / "examples" / "data" / "spx_cboe_2025-10-01")
    with pytest.raises(tenor.ParameterError) as e:
        tenor.calibrate_heston(chain, nodes=10, **SMALL)
    assert e.value.parameter == "nodes" and "between 64 and 8192" in str(e.value)
    with pytest.raises(tenor.ParameterError) as e:
        tenor.calibrate_heston(chain, pricer="gpu", **SMALL)
    assert e.value.parameter == "pricer"
    with pytest.raises(tenor.ParameterError) as e:
        tenor.calibrate_heston(chain, max_sd=0.0, **SMALL)
    assert e.value.parameter == "max_sd"


def test_bad_chain_file_raises_input_error(tmp_path):
    bad = tmp_path / "quotes.csv"
    bad.write_text("not,a,cboe,file\n1,2,3,4\n")
    with pytest.raises(tenor.InputError) as e:
        tenor.calibrate_heston(bad, **SMALL)
    assert e.value.file is not None and str(bad) in e.value.file


def test_too_few_quotes_raise_tenor_error(root):
    chain = need(root / "examples" / "data" / "spx_cboe_2025-10-01")
    with pytest.raises(tenor.TenorError, match="quotes qualify"):
        tenor.calibrate_heston(chain, max_years=0.001, min_days=0.0, **SMALL)
