"""Shared fixtures: the repository root, the shared data folder (../shared beside the checkout,
or TENOR_SHARED) and the `tenor` command built from the same sources (TENOR_BIN, else
target/debug/tenor). A missing file fails the test and names the path (no skips)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _shared() -> pathlib.Path:
    env = os.environ.get("TENOR_SHARED")
    return pathlib.Path(env) if env else ROOT.parent / "shared"


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def shared() -> pathlib.Path:
    s = _shared()
    assert s.is_dir(), f"shared data folder missing: {s} (set TENOR_SHARED)"
    return s


@pytest.fixture(scope="session")
def tenor_bin() -> pathlib.Path:
    b = pathlib.Path(os.environ.get("TENOR_BIN", ROOT / "target" / "debug" / "tenor"))
    assert b.is_file(), f"the tenor command is missing: {b} (cargo build -p tenor-cli, or set TENOR_BIN)"
    return b


def need(path: pathlib.Path) -> pathlib.Path:
    assert path.exists(), f"test input missing: {path}"
    return path
