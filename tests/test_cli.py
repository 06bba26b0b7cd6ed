"""The demo job and the console script, end to end (offline, a few seconds; the demo's map section is left out)."""

from __future__ import annotations

import pytest

from pgmpy_ext.cli import build_parser, main


def test_demo_runs_and_reports(tmp_path):
    from pgmpy_ext._demo import run_demo

    lines = []
    res = run_demo(output_dir=tmp_path, n_train=1500, n_test=500, seed=3, out=lines.append,
                   sections=("asia", "classifiers"))
    assert (tmp_path / "asia_tan.bif").exists()
    assert (tmp_path / "asia_tan.xml").exists()
    assert res["round_trip"] is True
    assert res["tan"].check_model()
    # a TAN learned from 1500 rows is close to the Bayes-optimal classifier with the true network
    assert res["accuracy"] >= res["bayes_accuracy"] - 0.05
    assert any("batch posterior agrees: True" in line for line in lines)
    # the classifier-family part on Corral: SBN keeps the 3 edges of Ruz's thesis (Table 3.2 / Fig. 4.13)
    assert len(res["corral_sbn_edges"]) == 3
    assert res["corral_round_trip"] is True
    assert res["corral_cv"]["SBN"] >= res["corral_cv"]["NB"]
    assert any("predict_proba agrees: True" in line for line in lines)


def test_cli_demo_and_version(tmp_path, capsys):
    assert main(["demo", "--output-dir", str(tmp_path), "--n-train", "800", "--n-test", "200", "--no-progress",
                 "--sections", "asia"]) == 0
    out = capsys.readouterr().out
    assert "TAN learned" in out
    assert "read back with every CPD equal: True" in out
    assert main(["version"]) == 0
    assert "pgmpy-ext" in capsys.readouterr().out


def test_demo_families_run_and_draw(tmp_path):
    """The demo's other families (not the map, the slowest part): numbers a user can check, and the pictures."""
    pytest.importorskip("matplotlib")
    from pgmpy_ext._demo import run_demo

    lines = []
    res = run_demo(output_dir=tmp_path, out=lines.append, sections=("tm", "clustering", "population"))
    tm = res["tm"]
    assert tm["naive Bayes, TM parameters"][1] < tm["naive Bayes (generative CPTs)"][1]  # lower held-out log loss
    assert res["clustering"]["LatentClassEM"] > 0.8
    assert res["population"]["PopulationEMA"] > 0.8
    assert sorted(p.name for p in res["pictures"]) == ["latent_classes.png", "population_structure.png"]
    assert all(p.stat().st_size > 10_000 for p in res["pictures"])
    assert any(line.strip().startswith("demo done in") for line in lines)


def test_demo_without_matplotlib_runs_and_says_so(tmp_path, monkeypatch):
    import importlib.util

    from pgmpy_ext import _demo

    real = importlib.util.find_spec
    monkeypatch.setattr(_demo.importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    lines = []
    res = _demo.run_demo(output_dir=tmp_path, out=lines.append, sections=("clustering",))
    assert res["pictures"] == []
    assert not list(tmp_path.glob("*.png"))
    assert any("matplotlib is not installed" in line and "pgmpy-ext[plot]" in line for line in lines)
    assert res["clustering"]["LatentClassEM"] > 0.8


def test_demo_dask_section(tmp_path):
    pytest.importorskip("dask")
    pytest.importorskip("distributed")
    from pgmpy_ext._demo import _dask_section

    lines = []
    assert _dask_section(0, lines.append, n_rows=20_000) == {"skipped": False, "same_model": True}
    assert any("the same network as the in-memory fit: True" in line for line in lines)


def test_demo_rejects_an_unknown_section(tmp_path):
    from pgmpy_ext._demo import run_demo

    with pytest.raises(ValueError, match="not demo sections"):
        run_demo(output_dir=tmp_path, sections=("asia", "astrology"))


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
