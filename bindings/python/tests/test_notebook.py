"""The example notebook (examples/python_walkthrough.ipynb) runs top to bottom (nbclient):
every cell, its own assertions included (the Python strategy equals the built-in one)."""

import os

import nbclient
import nbformat

from conftest import need


def test_walkthrough_notebook_runs(root, shared):
    nb = nbformat.read(need(root / "examples" / "python_walkthrough.ipynb"), as_version=4)
    os.environ.setdefault("TENOR_SHARED", str(shared))
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(root)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    assert sum(1 for c in nb.cells if c.cell_type == "code" and c.get("outputs")) >= 6
