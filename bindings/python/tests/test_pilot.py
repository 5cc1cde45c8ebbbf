"""tenor.pilot.run is the pilot's harness: an unavailable backend is reported with the reason
tenor.backends() gives and not measured; bad settings raise ParameterError."""

import pytest

import tenor


def test_unavailable_backend_reported_not_measured():
    b = tenor.backends()
    missing = b[~b["available"]]
    assert len(missing) > 0, "every backend is available: this test needs one that is not"
    name, reason = missing["name"].iloc[0], missing["detail"].iloc[0]
    report = tenor.pilot.run([name], suite="quick")
    envs = report["env"]["backends"]
    assert [e["backend"] for e in envs] == [name]
    assert envs[0]["unavailable"] == reason
    assert report["throughput"] == [] and report["switch"] == []


def test_bad_suite():
    with pytest.raises(tenor.ParameterError) as info:
        tenor.pilot.run(["cpu"], suite="huge")
    assert info.value.parameter == "suite"
