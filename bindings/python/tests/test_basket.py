"""tenor.basket: the STAC-A2 basket job (docs/basket-job.md) from Python, equal to `tenor basket`'s
greeks.csv bit for bit, and its errors typed with the file and key named."""

import csv
import subprocess

import pandas as pd
import pytest

import tenor


def _name(x):
    """An asset column's cell as greeks.csv writes it: the name, or empty where missing."""
    return "" if pd.isna(x) else x


def _job(root):
    return root / "examples" / "basket" / "baseline.toml"


def _cli_rows(tenor_bin, job, out, *extra):
    r = subprocess.run([str(tenor_bin), "basket", "--job", str(job), "--out", str(out), *extra],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(out / "greeks.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_rows_equal_the_cli_bit_for_bit(root, tenor_bin, tmp_path):
    rows = _cli_rows(tenor_bin, _job(root), tmp_path, "--paths", "1000", "--steps", "12", "--seed", "5")
    df = tenor.basket(_job(root), paths=1000, steps=12, seed=5)
    assert list(df.columns) == tenor.BASKET_COLUMNS
    assert len(df) == len(rows) == 53
    for (_, got), want in zip(df.iterrows(), rows):
        assert got["greek"] == want["greek"]
        assert _name(got["asset"]) == want["asset"] and _name(got["other"]) == want["other"]
        # repr is Python's shortest round trip, as the CLI writes its numbers.
        assert float(want["value"]) == got["value"]
        assert float(want["stderr"]) == got["stderr"]
    assert len(df.attrs["job"]) == 64 and df.attrs["valuations"] == 43 and df.attrs["seconds"] > 0


def test_price_alone_on_an_open_device(root):
    dev = tenor.open("sim")
    df = tenor.basket(_job(root), backend=dev, paths=500, steps=5, greeks=False)
    assert list(df["greek"]) == ["price"]
    full = tenor.basket(_job(root), paths=500, steps=5)
    assert full["value"][0] == df["value"][0], "the price does not depend on the Greeks or the backend"


def test_bad_job_and_bad_override_are_typed(root, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(_job(root).read_text().replace("rho = -0.6", "rho = -1.5", 1))
    with pytest.raises(tenor.InputError) as e:
        tenor.basket(bad)
    assert e.value.file == str(bad) and e.value.column == "asset[1].rho"
    assert "(-1, 1)" in str(e.value)
    with pytest.raises(tenor.ParameterError) as e:
        tenor.basket(_job(root), paths=1)
    assert e.value.parameter == "paths"
    with pytest.raises(tenor.InputError) as e:
        tenor.basket(tmp_path / "missing.toml")
    assert e.value.file.endswith("missing.toml")
