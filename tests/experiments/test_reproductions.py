"""The seed 000 Table 3.2 / 3.3 and seed 002 ABN reproductions run end to end in quick mode (seconds), write reports
with the expected sections and sane values, and skip the shared-data parts cleanly when ../shared/datasets is
absent."""

from __future__ import annotations

import re

import pytest

from pgmpy_ext.cli import main
from pgmpy_ext.experiments import REPRODUCTIONS
from pgmpy_ext.experiments import _seed000_table32 as t32
from pgmpy_ext.experiments import _seed000_table33 as t33
from pgmpy_ext.experiments import _seed002_abn as abn

QUIET = {"log": lambda *a: None}


def _row(text: str, section: str, label: str) -> list[str]:
    """Cells of the table row starting with ``label`` in the section whose heading starts with ``section``."""
    part = text.split(f"\n## {section}", 1)[1].split("\n## ", 1)[0]
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r} in section {section!r}")


def _mean(cell: str) -> float:
    return float(cell.split("±")[0])


@pytest.fixture
def no_shared_data(monkeypatch, tmp_path):
    """Hide ../shared/datasets (and $PGMPY_EXT_DATA) from the loader."""
    monkeypatch.delenv("PGMPY_EXT_DATA", raising=False)
    monkeypatch.setattr("pgmpy_ext.datasets._loader._REPO_ROOT", tmp_path / "no" / "repo")


@pytest.mark.parametrize("name", ["seed000-table3.2", "seed000-table3.3", "seed002-abn"])
def test_registered(name):
    rep = REPRODUCTIONS[name]
    assert callable(rep.run)
    assert rep.title


# ---------------------------------------------------------------------------------------------- Table 3.2
def test_table32_quick_on_generated_corral(tmp_path):
    path = t32.run(tmp_path / "t32.md", quick=True, datasets=["Corral (generator)", "Zoo"], **QUIET)
    text = path.read_text()
    for heading in ("## Protocol", "## Test accuracy (%), alpha = 0", "## Test accuracy (%), alpha = 1",
                    "## Where the thesis's single split falls", "## SBN augmenting edges", "## Summary",
                    "## Why the numbers differ", "## Data used"):
        assert heading in text
    row = _row(text, "Test accuracy (%), alpha = 0", "Corral (generator)")
    assert row[1] == "128 / 128"
    assert row[2] == "64 / 64"
    assert row[3] == "82.81"
    assert row[7] == "100.00"
    nb, tan, sbn = _mean(row[4]), _mean(row[6]), _mean(row[8])
    assert 50 <= nb <= 100
    assert 50 <= tan <= 100
    assert 50 <= sbn <= 100
    assert sbn >= nb                                          # Corral: the augmenting edges help
    edges = _row(text, "SBN augmenting edges", "Corral (generator)")
    assert edges[1] == "3 / 5"
    assert 2.0 <= _mean(edges[3]) <= 4.0                      # a few edges, as in the thesis (3 of 5)
    assert _mean(edges[5]) >= _mean(edges[3])                 # the cumulative rule never stops earlier
    zoo = _row(text, "Test accuracy (%), alpha = 0", "Zoo")
    assert zoo[4] == "not run"
    assert "Not run: not selected in this run." in text      # growth needs Cleve, which was not selected


def test_table32_quick_with_shared_data(tmp_path, shared_datasets):
    path = t32.run(tmp_path / "t32.md", quick=True, datasets=["Iris", "Cleve"], data_home=shared_datasets,
                   **QUIET)
    text = path.read_text()
    assert _row(text, "Test accuracy (%), alpha = 0", "Cleve")[1] == "296 / 296"   # 7 coded-missing rows dropped
    iris = _row(text, "SBN augmenting edges", "Iris")
    assert 0.0 <= _mean(iris[3]) <= 3.0
    for frac, rows in (("10%", "30"), ("50%", "148"), ("80%", "237")):
        g = _row(text, "Cleve: SBN edges", frac)
        assert g[1] == rows
        assert 0.0 <= _mean(g[3]) <= 12.0
        assert _mean(g[7]) >= _mean(g[3])                     # cumulative >= marginal
    assert "The monitor on sample 0 at 50%" in text


def test_table32_skips_missing_data(tmp_path, no_shared_data):
    path = t32.run(tmp_path / "t32.md", quick=True, datasets=["Corral (generator)", "Iris", "Cleve"], **QUIET)
    text = path.read_text()
    assert _row(text, "Test accuracy (%), alpha = 0", "Iris")[4] == "not run"
    assert "Not run: the Cleve file is not available" in text
    assert _mean(_row(text, "Test accuracy (%), alpha = 0", "Corral (generator)")[8]) > 50


def test_monitor_variants_on_corral():
    """The edge counts derived from one SBN's monitor equal those of refitted classifiers (Corral: 3 and 5)."""
    from pgmpy_ext.classifiers import SBNClassifier
    from pgmpy_ext.datasets import make_corral

    X, y = make_corral()
    variants = t32._monitor_variants(SBNClassifier(alpha=0.0).fit(X, y))
    assert variants["marginal"] == 3
    assert variants["cumulative"] == 5
    assert variants["marginal_int"] == len(SBNClassifier(integer_code_length=True).fit(X, y)
                                           .structure_.augmenting_edges())


# ---------------------------------------------------------------------------------------------- Table 3.3
def test_table33_quick(tmp_path):
    path = t33.run(tmp_path / "t33.md", quick=True, **QUIET)
    text = path.read_text()
    for heading in ("## Protocol", "## Per fold, main run", "## Extra columns", "## Over 1 generator seeds",
                    "## Summary", "## Why the numbers differ"):
        assert heading in text
    assert "not C4.5" in text.lower() or "**Not C4.5**" in text
    for k, label in enumerate(["1st", "2nd", "3rd", "4th", "5th"]):
        row = _row(text, "Per fold", label)
        assert row[1] == f"{t33.TARGETS['folds'][k][0]:.2f}"   # thesis C4.5 copied
        for cell in (row[2], row[4], row[6], row[7]):
            assert 0.0 <= float(cell) <= 100.0
        marginal, cumulative = (int(row[c].split("/")[0]) for c in (9, 10))
        assert 0 <= marginal <= cumulative <= 59
    mean = _row(text, "Per fold", "**Mean**")
    assert mean[1] == "91.06"
    assert mean[3] == "98.19"
    assert mean[5] == "98.93"
    assert float(mean[7]) > 60.0                                # SBN (alpha 1) learns the six patterns


# ---------------------------------------------------------------------------------------------- seed 002
def test_forest_enumeration():
    assert [abn.labelled_forests(n)[1].shape[0] for n in range(1, 7)] == list(abn.FOREST_COUNTS[:6])


def test_seed002_quick(tmp_path):
    path = abn.run(tmp_path / "abn.md", quick=True, datasets=[], **QUIET)
    text = path.read_text()
    assert "**The paper has no experiments, no data sets and no tables**" in text
    m = re.search(r"attains the brute-force minimum on \*\*(\d+) of (\d+)\*\*", text)
    assert m
    assert m.group(1) == m.group(2)
    assert int(m.group(2)) >= 3
    assert "total gain 80.92" in text
    assert "total gain 65.66" in text
    assert "identical to the TAN: **yes**" in text
    assert "identical to naive Bayes: **yes**" in text
    assert "Not run: no shared data set is available." in text


def test_seed002_brute_force_case_is_optimal():
    case = abn.brute_force_case(6, 3, 200, "mixed", 1)
    assert case["n_forests"] == 2932
    assert abn._is_opt(case, "abn")
    assert case["mdl"]["abn"] <= min(case["mdl"]["tan"], case["mdl"]["nb"]) + 1e-8
    assert case["ours_mdl"] == pytest.approx(case["mdl"]["abn"], rel=1e-9)


def test_seed002_real_data_skips_cleanly(tmp_path, no_shared_data):
    path = abn.run(tmp_path / "abn.md", quick=True, **QUIET)
    assert "Not run: Iris, Vote not available." in path.read_text()


def test_seed002_real_data(shared_datasets):
    res = abn.real_task("Iris", "table32:Iris", 0, shared_datasets)
    assert res["mdl"]["abn"] <= min(res["mdl"]["tan"], res["mdl"]["nb"]) + 1e-8
    assert res["ours_mdl"] == pytest.approx(res["mdl"]["abn"], rel=1e-9)


def test_cli_reproduce_quick(tmp_path, capsys):
    out = tmp_path / "cli.md"
    assert main(["reproduce", "seed002-abn", "--quick", "--output", str(out), "--n-jobs", "1"]) == 0
    assert out.exists()
    assert "seed002-abn" in out.read_text()
    assert main(["reproduce", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "seed000-table3.2" in listed
    assert "seed000-table3.3" in listed
    assert "seed002-abn" in listed
