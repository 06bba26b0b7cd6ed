"""Importing the kernels' wrappers loads neither pgmpy nor scikit-learn (Dask workers stay small; design note
scale-out.md §5.6), and importing pgmpy_ext still hides pgmpy 1.1.2's import-time FutureWarning about its own
deprecated module. Each check runs in a fresh interpreter, since this test process has long imported both."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _run(code: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *flags, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_low_layers_import_without_pgmpy_or_sklearn():
    code = ("import sys\n"
            "import pgmpy_ext, pgmpy_ext.data, pgmpy_ext.stats, pgmpy_ext.utils, pgmpy_ext._core._counting\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pgmpy', 'sklearn'})\n"
            "assert not heavy, heavy\n"
            f"assert pgmpy_ext.stats.__file__.startswith({str(REPO)!r}), pgmpy_ext.stats.__file__\n")
    res = _run(code)
    assert res.returncode == 0, res.stderr


def test_pgmpy_import_warning_stays_hidden_for_users():
    """``import pgmpy_ext`` then the user's own pgmpy.estimators import: no FutureWarning, even under -W error."""
    res = _run("import pgmpy_ext\nimport pgmpy.estimators\nfrom pgmpy_ext.classifiers import TANClassifier\n",
               "-W", "error::FutureWarning")
    assert res.returncode == 0, res.stderr
    assert "FutureWarning" not in res.stderr


def test_pgmpy_import_warning_is_real_without_pgmpy_ext():
    """The filter above is needed: without pgmpy_ext, pgmpy 1.1.2 does warn (so the test above can fail)."""
    res = _run("import pgmpy.estimators\n", "-W", "error::FutureWarning")
    assert res.returncode != 0
    assert "StructureScore" in res.stderr
