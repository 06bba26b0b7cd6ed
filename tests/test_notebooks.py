"""The notebooks in notebooks/ run top to bottom, offline, and print what they claim.

Each notebook is executed with nbclient in a fresh IPython kernel started from *this* interpreter (``sys.executable``):
the kernel spec is written to a temporary folder and is the only one the kernel-spec manager looks at, so a
``python3`` kernel registered elsewhere on the machine (user or system Jupyter folders) cannot be picked up instead.
A first injected cell checks that the kernel runs in this environment. Any cell error fails the test (nbclient
raises ``CellExecutionError``); the notebooks ``assert`` their key facts themselves, and the test also reads a few
printed numbers back. The executed copy is discarded: the committed files are never rewritten by the tests.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402  (installed with nbclient)
from jupyter_client.manager import KernelManager  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
CELL_TIMEOUT = 120  # seconds per cell; every cell takes a few seconds at most on the 2-core machine

# Numbers each notebook prints, read back from the fresh outputs: (regex with one group, check on the float).
EXPECTED_OUTPUTS = {
    "01_classifiers_pgmpy.ipynb": [
        (r"max \|VE - predict_proba\| over 128 rows: (\S+)", lambda v: v < 1e-9),
        (r"EqualFrequency\(5\) \+ TAN\s+(\S+)", lambda v: v > 0.85),
    ],
    "02_discriminative_tm.ipynb": [
        (r"NB, TM parameters:\s+training CLL\s+(\S+)", lambda v: v > -37.0),  # maximum likelihood: -37.114
        (r"L-BFGS\s+\d+ iterations, final CLL\s+(\S+)", lambda v: v > -40.0),
    ],
    "03_cem_clustering.ipynb": [
        (r"max \|VE - predict_proba\| over 128 rows: (\S+)", lambda v: v < 1e-9),
    ],
    "07_topographic_maps.ipynb": [
        (r"fold-overs at t = 500: (\S+)", lambda v: v == 0),
        (r"NBM M1\(5\) on Iris: (\S+)", lambda v: v > 0.9),
        (r"tie-free: \|ours - sklearn\| = (\S+)", lambda v: v < 1e-12),
    ],
    "04_latent_class_and_ema.ipynb": [
        (r"EMA matched accuracy (\S+)", lambda v: v > 0.9),
        (r"largest arc posterior of a noise column: (\S+)", lambda v: v < 0.5),
        (r"\|VE - predict_proba\| for row 0: (\S+)", lambda v: v < 1e-9),
    ],
    "06_bench_microarrays.ipynb": [
        (r"max \|VE - predict_proba\| over 30 rows: (\S+)", lambda v: v < 1e-9),
        (r"random forest \(500\)\s+test accuracy (\S+)", lambda v: v > 0.8),
    ],
    "05_population_structure.ipynb": [
        (r"accuracy \(Hungarian\): (\S+)", lambda v: v > 0.9),
        (r"default calibration gap: (\S+)", lambda v: v < 0.05),
    ],
}


def test_every_notebook_has_expectations():
    assert PATHS, f"no notebooks in {NOTEBOOKS}"
    assert sorted(p.name for p in PATHS) == sorted(EXPECTED_OUTPUTS)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_committed_notebook_is_executed_and_small(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert nb.cells[0].cell_type == "markdown", "the first cell is the title"
    assert nb.cells[0].source.startswith("# "), "the first cell is the title"
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name} is not executed top to bottom: {counts}"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"], f"{path.name} has an error output"
    assert path.stat().st_size < 200_000, f"{path.name} is {path.stat().st_size} bytes; keep outputs small"


def _kernel_manager(spec_dir: Path) -> KernelManager:
    kernel_dir = spec_dir / "python3"
    kernel_dir.mkdir(parents=True)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (test)", "language": "python"}
    (kernel_dir / "kernel.json").write_text(json.dumps(spec))
    specs = KernelSpecManager(kernel_dirs=[str(spec_dir)], ensure_native_kernel=False)
    return KernelManager(kernel_name="python3", kernel_spec_manager=specs)


def _text_outputs(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                parts.append(out.data.get("text/plain", ""))
    return "\n".join(parts)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    check = f"import sys\nexpected = {sys.prefix!r}\nassert sys.prefix == expected, (sys.prefix, expected)"
    nb.cells.insert(0, nbformat.v4.new_code_cell(check))
    work = tmp_path / "work"
    work.mkdir()
    client = nbclient.NotebookClient(nb, km=_kernel_manager(tmp_path / "kernels"), timeout=CELL_TIMEOUT,
                                     startup_timeout=120, record_timing=False,
                                     resources={"metadata": {"path": str(work)}})
    client.execute()  # raises CellExecutionError on the first failing cell

    stderr = "".join(o.text for c in nb.cells for o in c.get("outputs", [])
                     if o.output_type == "stream" and o.name == "stderr")
    # Our warnings point at the caller (stacklevel=2), so look for our category and for our module names.
    assert not re.search(r"ConvergenceWarning|pgmpy_ext\S*\.py:\d+: \w*Warning", stderr), stderr
    assert not list(work.iterdir()), "the notebook left files behind in its working directory"
    text = _text_outputs(nb)
    for pattern, ok in EXPECTED_OUTPUTS[path.name]:
        match = re.search(pattern, text)
        assert match, f"{path.name}: no output matches {pattern!r}"
        assert ok(float(match.group(1))), f"{path.name}: {match.group(0)!r} fails its check"
