"""The seed 004 BENCH reproduction runs end to end in quick mode on the shared leukemia file (skipped without it)."""

from __future__ import annotations

import json

import numpy as np

from pgmpy_ext.experiments import REPRODUCTIONS
from pgmpy_ext.experiments import _seed004_bench as bench


def test_registered():
    assert REPRODUCTIONS["seed004-bench"].run is bench.run


def test_folds_protocols():
    y = np.array([0] * 47 + [1] * 25)
    strat = bench.folds(y, "stratified", 10, 0)
    floor = bench.folds(y, "floor", 10, 0)
    assert sorted(np.concatenate([te for _, te in strat]).tolist()) == list(range(72))
    assert [te.size for _, te in floor] == [7] * 10  # the thesis's 70 of 72 rows tested
    for tr, te in floor:
        assert tr.size == 65
        assert not set(tr) & set(te)
    tested = np.concatenate([te for _, te in floor])
    assert np.unique(tested).size == 70


def test_quick_report(shared_datasets, tmp_path):
    cache = tmp_path / "cache"
    path = bench.run(tmp_path / "b.md", quick=True, cache_dir=cache, log=lambda *a: None)
    text = path.read_text()
    assert "Partial report" not in text
    row = next(line for line in text.splitlines() if line.startswith("| C4.5 (C45Classifier, J48 defaults) |"))
    single, ensemble = (float(cell) for cell in row.split("|")[2:4])
    assert 0.0 <= single <= 100.0
    assert 0.0 <= ensemble <= 100.0
    # the saved fold is reused for the same settings, and run again (here: reported missing) for other settings
    (fold_file,) = cache.glob("leukemia-stratified-0.json")
    reused = bench.run(tmp_path / "again.md", quick=True, cache_dir=cache, partial=True, note="fold 0 only.",
                       log=lambda *a: None)
    assert "Partial report" not in reused.read_text()
    assert "**What was run:** fold 0 only." in reused.read_text()
    saved = json.loads(fold_file.read_text())
    assert saved["settings"]["samba"]["threshold"] == bench.CALIBRATED_SAMBA["threshold"]
    saved["settings"]["samba"]["threshold"] = 1.5
    fold_file.write_text(json.dumps(saved))
    stale = bench.run(tmp_path / "stale.md", quick=True, cache_dir=cache, partial=True, log=lambda *a: None)
    assert "Partial report: 1 of" in stale.read_text()
    for heading in ("## Accuracy (%), protocol `stratified`", "## Accuracy (%), protocol `floor`",
                    "## Table 4.2: weighting schemes", "## Fig. 4.2: leukemia", "## Fig. 4.5",
                    "## Ensemble sizes and bicluster calibration", "## Why the numbers differ"):
        assert heading in text
    assert "Quick smoke run" in text
    row = next(line for line in text.splitlines() if line.startswith("| random forest |"))
    acc = float(row.split("|")[2].split("(")[0])
    assert 50.0 <= acc <= 100.0
    # issue 29: naive Bayes, BENCH with every default (and its guard), the single BN on both protocols, sizes
    for method in ("naive Bayes", "BENCH defaults", "BENCH defaults, members only", "single BN"):
        row = next(line for line in text.splitlines() if line.startswith(f"| {method} |"))
        assert 0.0 <= float(row.split("|")[2].split("(")[0]) <= 100.0, row
    guard = next(line for line in text.splitlines() if line.startswith("| leukemia | floor | 1 of 1 |")
                 or line.startswith("| leukemia | floor | 0 of 1 |"))
    assert guard.count("|") == 10
    info = saved["info"]
    assert len(info["bc_rows"]) == len(info["bc_genes"]) == info["biclusters"]
    assert all(4 <= r <= 48 for r in info["bc_rows"])  # min_rows floor, training fold of 48 rows
    assert set(info["defaults"]) >= {"used_fallback", "ensemble_error", "fallback_error", "bc_rows", "bc_genes"}
    assert "| leukemia | thesis | FI datasets (mean) | – | 24 (mean) | 226 (mean) |" in text


def test_quartiles():
    assert bench._quartiles([]) == "–"
    assert bench._quartiles([1, 2, 3, 4, 5]) == "3 [2-4], 5"


def test_itdt_quick_report(shared_datasets, tmp_path):
    from pgmpy_ext.experiments import _seed004_itdt as itdt

    assert REPRODUCTIONS["seed004-itdt"].run is itdt.run
    path = itdt.run(tmp_path / "i.md", quick=True, log=lambda *a: None)
    text = path.read_text()
    for heading in ("## Table 3.1 (protocol `floor`)", "## Table 3.4 (protocol `stratified`)", "## Why the numbers"):
        assert heading in text
    row = next(line for line in text.splitlines() if line.startswith("| leukemia | 1 |"))
    reduction = float(row.split("|")[7].split("±")[0])
    assert 90.0 <= reduction <= 100.0  # a pruned tree keeps a handful of the 300 genes
    naive_bayes = float(row.split("|")[10])
    assert 50.0 <= naive_bayes <= 100.0
