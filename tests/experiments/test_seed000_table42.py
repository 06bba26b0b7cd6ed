"""The seed 000 Table 4.2 reproduction runs end to end (smoke settings) and the CLI reaches it."""

from __future__ import annotations

import numpy as np
import pytest

from pgmpy_ext.cli import main
from pgmpy_ext.experiments import REPRODUCTIONS, register
from pgmpy_ext.experiments import _seed000_table42 as t42


def test_registered():
    rep = REPRODUCTIONS["seed000-table4.2"]
    assert rep.run is t42.run
    with pytest.raises(ValueError, match="already registered"):
        register("seed000-table4.2", "again", "_seed000_table42")


def test_quick_run_on_corral_writes_a_report(tmp_path):
    path = t42.run(tmp_path / "r.md", quick=True, datasets=["Corral", "Zoo"], log=lambda *a: None)
    text = path.read_text()
    assert "| Corral | 128 | 2 |" in text
    assert "| Zoo | – | – | not run |" in text
    assert "Corral structures" in text
    assert "CEM-SBN" in text


def test_mixed_em_recovers_separated_clusters():
    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, 300)
    num = (z[:, None] * 4.0 + rng.normal(size=(300, 2)))
    cat = np.where(rng.random(300) < 0.9, z, 1 - z)
    init = rng.integers(0, 2, 300)
    labels = t42.mixed_em(num, [cat], 2, init)
    agree = max(np.mean(labels == z), np.mean(labels != z))
    assert agree > 0.97


def test_cli_lists_reproductions(capsys):
    assert main(["reproduce", "--list"]) == 0
    assert "seed000-table4.2" in capsys.readouterr().out
    assert main(["reproduce", "no-such-table"]) == 2


def test_weka_baselines_on_a_mixed_toy():
    import pandas as pd

    from pgmpy_ext.experiments._weka_baselines import weka_em, weka_simple_kmeans

    rng = np.random.default_rng(1)
    z = rng.integers(0, 2, 200)
    X = pd.DataFrame({"a": z * 5.0 + rng.normal(size=200), "b": z * 3.0 + rng.normal(size=200),
                      "c": pd.Categorical(np.where(rng.random(200) < 0.9, z, 1 - z))})
    # k-means: a 0/1 nominal mismatch outweighs numbers normalised to [0, 1], so it follows "c" (90 % agreement)
    for fn, floor in ((weka_simple_kmeans, 0.85), (weka_em, 0.95)):
        labels = fn(X, ["a", "b"], 2, 0)
        assert labels.shape == (200,)
        assert max(np.mean(labels == z), np.mean(labels != z)) > floor
        assert np.array_equal(labels, fn(X, ["a", "b"], 2, 0))  # the seed fixes the result
    # nominal only, three clusters asked of two distinct rows: SimpleKMeans keeps at most the distinct rows
    Y = pd.DataFrame({"c": pd.Categorical([0, 1] * 10)})
    assert len(np.unique(weka_simple_kmeans(Y, [], 3, 0))) == 2


def test_complete_case_crx_has_the_thesis_rows(shared_datasets):
    if not (shared_datasets / "uci" / "crx.tsv.gz").exists():
        pytest.skip("crx not in ../shared/datasets/uci")
    X, y, disc, cont = t42.load("Crx (complete cases)", shared_datasets)
    assert X.shape == (653, 15)
    assert sorted(np.bincount(y).tolist()) == [296, 357]
