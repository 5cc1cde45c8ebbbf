"""The allocation toolkit from Python against `tenor alloc profile|replay|advise --trace`
on the same trace file (a 3-job synthetic desk written by `tenor alloc profile --save-trace`):
every printed figure equal at the command line's precision; a malformed trace raises
InputError naming file, line and column."""

import re
import subprocess

import pytest

import tenor

MIB = float(1 << 20)


def _run(tenor_bin, *args):
    return subprocess.run([str(tenor_bin), "alloc", *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def trace(tenor_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("alloc")
    _run(tenor_bin, "profile", "--jobs", "3", "--save-trace", str(d / "desk.trace"), "--out", str(d))
    return d / "desk.trace"


def test_profile_equals_the_cli(tenor_bin, trace, tmp_path):
    out = _run(tenor_bin, "profile", "--trace", str(trace), "--out", str(tmp_path))
    p = tenor.alloc.profile(trace)
    assert f"events            {p['events']}\n" in out
    assert f"allocations       {p['allocations']} ({p['frees']} freed)" in out
    assert f"peak used         {p['peak_used_bytes'] / MIB:.2f} MiB" in out
    assert f"distinct sizes    {p['distinct_sizes']} (" in out
    assert (f"p5 {p['p5_bytes']} B, p50 {p['p50_bytes']} B, p95 {p['p95_bytes']} B, max {p['max_bytes']} B"
            in out)
    assert f"small (< 1 MiB)   {100 * p['small_share']:.1f} %" in out
    assert f"short-lived       {100 * p['short_lived_share']:.1f} %" in out
    assert f"streams / threads {p['streams']} / {p['threads']}" in out
    buckets = {int(k): int(n) for k, n in re.findall(r"^  2\^(\d+) *\.\. 2\^\d+ +(\d+)$", out, re.M)}
    assert buckets == p["histogram"] and sum(buckets.values()) == p["allocations"]
    jobs = {int(j): float(m) for j, m in re.findall(r"^  job +(\d+) +([\d.]+) MiB$", out, re.M)}
    assert jobs and jobs == {j: round(b / MIB, 2) for j, b in p["job_peaks"].items() if j in jobs}
    assert p["events"] == 60 and p["allocations"] == 30  # 3 jobs of the desk, 30 alloc/free pairs


def test_replay_equals_the_cli(tenor_bin, trace, tmp_path):
    out = _run(tenor_bin, "replay", "--trace", str(trace), "--out", str(tmp_path))
    df = tenor.alloc.replay(trace)
    rows = [line.split() for line in out.splitlines()[1:6]]
    assert list(df["strategy"]) == [r[0] for r in rows] == ["pool", "binning", "arena", "caching", "slab"]
    for (_, x), r in zip(df.iterrows(), rows):
        cfg = r[1:-8]
        assert x["configuration"] == " ".join(cfg)
        reserved, used, over, frag, waits, _ns, fails, hazards = r[-8:]
        assert f"{x['reserved_bytes'] / MIB:.2f}" == reserved
        assert f"{x['used_bytes'] / MIB:.2f}" == used
        assert f"{x['overhead']:.3f}" == over
        assert f"{100 * x['fragmentation_mean']:.1f}%" == frag
        assert str(x["waits"]) == waits and str(x["failures"]) == fails and str(x["hazards"]) == hazards
        assert x["left_reserved"] == 0


def test_advise_equals_the_cli(tenor_bin, trace):
    out = _run(tenor_bin, "advise", "--trace", str(trace))
    a = tenor.alloc.advise(trace)
    assert f"recommendation: {a['choice']}\n" in out
    for reason in a["reasons"]:
        assert f"  - {reason}\n" in out
    assert f"binning exponents: 2^{a['bin_exponents'][0]} .. 2^{a['bin_exponents'][1]}" in out
    assert f"slab classes (bytes): [{', '.join(map(str, a['classes']))}]" in out
    assert a["job_cap"] is not None and f"per-job cap: {a['job_cap'] / MIB:.0f} MiB" in out


def test_malformed_trace_raises_input_error(trace, tmp_path):
    lines = trace.read_text().splitlines()
    assert lines[1].split(",")[2] == "bytes"  # the header; line 3 is the first event
    fields = lines[2].split(",")
    fields[2] = "lots"
    bad = tmp_path / "bad.trace"
    bad.write_text("\n".join([*lines[:2], ",".join(fields), *lines[3:]]) + "\n")
    with pytest.raises(tenor.InputError) as e:
        tenor.alloc.profile(bad)
    assert e.value.file == str(bad) and e.value.line == 3 and e.value.column == "3"


def test_trace_without_allocations_raises_input_error(trace, tmp_path):
    empty = tmp_path / "empty.trace"
    empty.write_text("\n".join(trace.read_text().splitlines()[:2]) + "\n")
    with pytest.raises(tenor.InputError, match="no alloc events") as e:
        tenor.alloc.advise(empty)
    assert e.value.file == str(empty)
