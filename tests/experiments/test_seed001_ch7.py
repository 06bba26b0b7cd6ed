"""The seed 001 chapter-7 reproductions run end to end in quick mode (seconds) and write reports with the expected
sections and sane values; Table 7.3 reports the shared leukemia file's absence instead of failing."""

from __future__ import annotations

import re

import pytest

from pgmpy_ext.experiments import REPRODUCTIONS
from pgmpy_ext.experiments import _seed001_figs72_73 as figs
from pgmpy_ext.experiments import _seed001_model_detection as md
from pgmpy_ext.experiments import _seed001_table73 as t73
from pgmpy_ext.experiments import _seed001_tables71_72 as t71

QUIET = {"log": lambda *a: None}


@pytest.mark.parametrize("name", ["seed001-tables7.1-7.2", "seed001-figs7.2-7.3", "seed001-model-detection",
                                  "seed001-table7.3"])
def test_registered(name):
    assert callable(REPRODUCTIONS[name].run)


def test_thesis_tables_parsed():
    assert len(t71.TABLE_71) == 12
    assert len(t71.TABLE_72) == 24
    assert t71.TABLE_71[4, 2][0] == (24, 17, 9, True)
    assert t71.TABLE_72[40, 3, 3][6] == (22, 0, 28, False)
    sums = {(k, i): sum(c[:3]) for k, row in {**t71.TABLE_71, **t71.TABLE_72}.items() for i, c in enumerate(row)}
    assert sorted(v for v in sums.values() if v != 50) == [51] * 5          # the five typo cells of spec 8.3


def test_tables71_72_quick(tmp_path):
    text = t71.run(tmp_path / "t.md", quick=True, **QUIET).read_text()
    for heading in ("## Protocol", "## Table 7.1", "## Table 7.2", "## Summary"):
        assert heading in text
    row = next(line for line in text.splitlines() if line.startswith("| 4 | 2 | "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    w, d, loss = (int(v) for v in re.match(r"(\d+)/(\d+)/(\d+)", cells[2]).groups())
    assert w + d + loss == 6                                                     # 6 models in quick mode
    assert cells[2].endswith("(24/17/9*)")
    assert cells[3] == "– (24/18/8*)"                                         # N = 20 not run in quick mode


def test_figs72_73_quick(tmp_path):
    text = figs.run(tmp_path / "f.md", quick=True, **QUIET).read_text()
    assert "## n = 4" in text
    row = next(line for line in text.splitlines() if line.startswith("| 1 | "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    kl_ema, t99, t95 = float(cells[1]), float(cells[4]), float(cells[5])
    assert kl_ema >= 0
    assert 0 < t99 <= t95


def test_model_detection_quick(tmp_path):
    text = md.run(tmp_path / "m.md", quick=True, **QUIET).read_text()
    assert "## Model A" in text
    assert "## Model B" in text
    assert "Thesis claim" in text


def test_table73_quick_and_absent_data(tmp_path):
    text = t73.run(tmp_path / "l.md", quick=True, **QUIET).read_text()
    row = next(line for line in text.splitlines() if line.startswith("| EMA (BC) |"))
    acc = float(row.split("|")[3].split("±")[0])
    assert 50.0 <= acc <= 100.0
    assert t73.load_leukemia(tmp_path) is None                                # no microarray folder here


def test_leukemia_file_shape(shared_datasets):
    data = t73.load_leukemia(shared_datasets)
    if data is None:
        pytest.skip("ALLAML.mat not in ../shared/datasets/microarray")
    X, y = data
    assert X.shape == (72, 7129)
    assert (y == 0).sum() == 47
    assert (y[:38] == 0).sum() == 27                                          # Golub's training set
    codes = t73.discretize_tertiles(X)
    assert set(codes.ravel().tolist()) == {0, 1, 2}


def _register_fake_reproductions(monkeypatch, **runs) -> None:
    """Register ``name -> run function`` as reproductions backed by throw-away modules (undone by monkeypatch)."""
    import sys
    import types

    from pgmpy_ext.experiments import Reproduction

    for name, fn in runs.items():
        module = types.ModuleType(f"pgmpy_ext.experiments._{name}_for_tests")
        module.run = fn
        monkeypatch.setitem(sys.modules, module.__name__, module)
        monkeypatch.setitem(REPRODUCTIONS, name, Reproduction(name, "fake", f"_{name}_for_tests"))


def test_cli_full_flag(tmp_path, monkeypatch, capsys):
    from pgmpy_ext.cli import main

    seen = {}

    def with_full(output=None, *, quick=False, full=False, n_jobs=None):
        seen["full"] = full
        return output

    def without_full(output=None, *, quick=False, n_jobs=None):
        return output

    _register_fake_reproductions(monkeypatch, withfull=with_full, nofull=without_full)
    assert main(["reproduce", "withfull", "--output", str(tmp_path / "a.md"), "--full"]) == 0
    assert seen["full"] is True
    assert main(["reproduce", "withfull", "--output", str(tmp_path / "a.md")]) == 0
    assert seen["full"] is False
    assert main(["reproduce", "nofull", "--output", str(tmp_path / "b.md"), "--full"]) == 2
    assert "has no --full grid" in capsys.readouterr().err


def test_cli_reproduce_cache_options(monkeypatch, tmp_path, capsys):
    from pgmpy_ext.cli import main

    seen = {}

    def with_cache(output=None, *, quick=False, n_jobs=None, cache_dir=None, partial=False):
        seen.update(cache_dir=cache_dir, partial=partial)
        return output

    def without_cache(output=None, *, quick=False, n_jobs=None):
        return output

    _register_fake_reproductions(monkeypatch, withcache=with_cache, nocache=without_cache)
    out = str(tmp_path / "a.md")
    assert main(["reproduce", "withcache", "--output", out, "--cache-dir", str(tmp_path), "--partial"]) == 0
    assert seen == {"cache_dir": tmp_path, "partial": True}
    assert main(["reproduce", "withcache", "--output", out]) == 0
    assert seen == {"cache_dir": None, "partial": False}
    assert main(["reproduce", "withcache", "--output", out, "--partial"]) == 2
    assert "give --cache-dir too" in capsys.readouterr().err
    assert main(["reproduce", "nocache", "--output", out, "--cache-dir", str(tmp_path)]) == 2
    assert "has no --cache-dir option" in capsys.readouterr().err
