"""The demo job and the console script, end to end (offline, a few seconds)."""

from __future__ import annotations

import pytest

from pgmpy_ext.cli import build_parser, main


def test_demo_runs_and_reports(tmp_path):
    from pgmpy_ext._demo import run_demo

    lines = []
    res = run_demo(output_dir=tmp_path, n_train=1500, n_test=500, seed=3, out=lines.append)
    assert (tmp_path / "asia_tan.bif").exists()
    assert (tmp_path / "asia_tan.xml").exists()
    assert res["round_trip"] is True
    assert res["tan"].check_model()
    # a TAN learned from 1500 rows is close to the Bayes-optimal classifier with the true network
    assert res["accuracy"] >= res["bayes_accuracy"] - 0.05
    assert any("batch posterior agrees: True" in line for line in lines)
    # the classifier-family part on Corral: SBN keeps the 3 edges of the thesis (seed 000 Table 3.2 / Fig. 4.13)
    assert len(res["corral_sbn_edges"]) == 3
    assert res["corral_round_trip"] is True
    assert res["corral_cv"]["SBN"] >= res["corral_cv"]["NB"]
    assert any("predict_proba agrees: True" in line for line in lines)


def test_cli_demo_and_version(tmp_path, capsys):
    assert main(["demo", "--output-dir", str(tmp_path), "--n-train", "800", "--n-test", "200", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "TAN learned" in out
    assert "read back with every CPD equal: True" in out
    assert main(["version"]) == 0
    assert "pgmpy-ext" in capsys.readouterr().out


def test_cli_rejects_unknown_command():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["frobnicate"])


def test_python_dash_m_runs_the_cli():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "pgmpy_ext.cli", "reproduce", "--list"], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "seed004-bench" in done.stdout
