"""Seed 004 chapter 2 reproduction in quick mode (seconds): report sections, sane values, registration."""

from __future__ import annotations

import pytest

from pgmpy_ext.experiments import REPRODUCTIONS
from pgmpy_ext.experiments import _seed004_ch2 as ch2


def test_registered():
    assert REPRODUCTIONS["seed004-ch2"].run is ch2.run


def test_quick_run_on_voting(tmp_path, shared_datasets):
    path = ch2.run(tmp_path / "ch2.md", quick=True, data_home=shared_datasets, log=lambda *a: None)
    text = path.read_text()
    for heading in ("## Protocol", "## Accuracy (%) without / with C4.5 feature selection",
                    "## Learning time (s per fold)", "## Feature reduction (Table 2.6)", "## Why the numbers differ"):
        assert heading in text
    rows = {}
    for line in text.splitlines():  # first row of each label: the accuracy table comes first
        if line.startswith(("| K2 ", "| C4.5 ", "| Voting ")):
            rows.setdefault(line.split("|")[1].strip(), line)
    k2 = rows["K2"].split("|")[2]
    without, with_fs = (float(part.split("±")[0]) for part in k2.split("/"))
    assert 85.0 <= without <= 100.0
    assert 85.0 <= with_fs <= 100.0
    assert "95.19 / 96.06" in rows["K2"]                       # thesis values copied
    selected = float(rows["Voting"].split("|")[4].split("(")[0])
    assert 1.0 <= selected < 16.0


def test_unavailable_data_is_reported(tmp_path, monkeypatch):
    monkeypatch.delenv("PGMPY_EXT_DATA", raising=False)
    monkeypatch.setattr("pgmpy_ext.datasets._loader._REPO_ROOT", tmp_path / "no" / "repo")
    path = ch2.run(tmp_path / "ch2.md", quick=True, datasets=["Voting"], log=lambda *a: None)
    text = path.read_text()
    assert "## Not run" in text
    assert "Voting ours" not in text


@pytest.mark.parametrize("name", list(ch2.DATASETS))
def test_thesis_tables_cover_every_dataset(name):
    k = list(ch2.DATASETS).index(name)
    assert all(len(v) == 4 for v in ch2.TABLE_25.values())
    assert name in ch2.TABLE_26
    assert ch2.TABLE_25["K2"][k][0] is not None
