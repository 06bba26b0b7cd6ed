"""The README's code runs as written (in a temporary directory, offline): every python block on its own, and the
bash block of the command-line section that uses only built-in data (fit, predict, cluster)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_blocks():
    assert len(_blocks("python")) >= 2
    assert any("pgmpy-ext fit" in b for b in _blocks("bash"))


@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_readme_python_block_runs_on_its_own(tmp_path, monkeypatch, capsys, index):
    code = _blocks("python")[index]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{README}:python block {index + 1}", "exec"), {"__name__": "__readme__"})  # a fresh namespace
    out = capsys.readouterr().out
    if index == 0:
        assert "dysp" in out
        assert (tmp_path / "asia_sbn.xml").exists()
    if index == 1:  # the numbers the block's comments quote (thesis TM: 28 iterations, CLL -0.0044; default: prior
        # strength 30, training CLL -8.61; 5-fold held-out log loss of TAN, TAN-TM without and with the prior)
        (it_tm, cll_tm), (strength, cll_reg) = (line.split() for line in out.splitlines()[1:3])
        assert (int(it_tm), round(float(cll_tm), 4)) == (28, -0.0044)
        assert (float(strength), round(float(cll_reg), 2)) == (30.0, -8.61)
        gen, free, default = (round(float(v), 2) for v in out.splitlines()[3:6])
        assert (gen, free, default) == (-0.31, -5.35, -0.31)


def _run_shell_line(line: str) -> None:
    """One README shell line, run in-process: ``python -c CODE`` or ``pgmpy-ext ARGS`` (the tree under test, not
    whatever ``pgmpy-ext`` is on PATH); anything else fails the test so the block stays runnable."""
    from pgmpy_ext.cli import main

    words = shlex.split(line, comments=True)
    if not words:
        return
    if words[:2] == ["python", "-c"] and len(words) == 3:
        exec(compile(words[2], "README python -c", "exec"), {"__name__": "__readme__"})
    elif words[0] == "pgmpy-ext":
        assert main(words[1:] + ["--no-progress"] * (words[1] in ("fit", "cluster"))) == 0, line
    else:
        raise AssertionError(f"the README block has a line this test cannot run: {line!r}")


def test_readme_fit_predict_cluster_block_runs(tmp_path, monkeypatch, capsys):
    block = next(b for b in _blocks("bash") if "pgmpy-ext fit" in b)
    monkeypatch.chdir(tmp_path)
    for line in block.splitlines():
        _run_shell_line(line)
    capsys.readouterr()
    pred = pd.read_csv(tmp_path / "predictions.csv", index_col=0)
    assert len(pred) == 128
    assert list(pred.columns) == ["prediction", "P(0)", "P(1)"]
    assert (tmp_path / "corral_tan.bif").exists()
    assert (tmp_path / "corral_tan.json").exists()
    clusters = pd.read_csv(tmp_path / "clusters.csv", index_col=0)
    assert set(clusters["cluster"]) == {0, 1}
    assert (tmp_path / "corral_cem.xml").exists()
