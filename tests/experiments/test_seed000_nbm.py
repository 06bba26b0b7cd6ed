"""The chapter-5 reproductions (naive Bayes maps) run end to end in quick mode, write their reports and PNG figures,
and report a missing shared data set or a missing optional package instead of failing."""

from __future__ import annotations

import numpy as np
import pytest

from pgmpy_ext.experiments import REPRODUCTIONS
from pgmpy_ext.experiments import _seed000_nbm_iris as iris
from pgmpy_ext.experiments import _seed000_nbm_maps as maps
from pgmpy_ext.experiments import _seed000_nbm_unit_square as square

QUIET = {"log": lambda *a: None}


@pytest.mark.parametrize("name", ["seed000-nbm-unit-square", "seed000-nbm-iris", "seed000-nbm-maps"])
def test_registered(name):
    assert callable(REPRODUCTIONS[name].run)


def test_unit_square_quick(tmp_path):
    path = square.run(tmp_path / "sq.md", quick=True, n_seeds=1, **QUIET)
    text = path.read_text()
    assert "| thesis | 0 |" in text
    assert "| exact | 0 |" in text
    row = next(line for line in text.splitlines() if line.startswith("| thesis | 0 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[2]) > 50                                    # folded at t = 0
    assert int(cells[3]) == 0                                    # ordered at t = 500
    assert "the default): holds" in text
    assert (tmp_path / "figures" / "seed000-nbm-unit-square-quick.png").stat().st_size > 1000


def test_iris_quick(tmp_path):
    path = iris.run(tmp_path / "iris.md", quick=True, **QUIET)
    text = path.read_text()
    for heading in ("## Protocol", "## Log-likelihood per epoch", "## Against the thesis"):
        assert heading in text
    runs = ("| run 1", "| run 2", "| run 3")
    lls = [float(line.split("|")[2]) for line in text.splitlines() if line.startswith(runs)]
    assert len(lls) == 3
    assert all(-1000 < v < -400 for v in lls)
    for f in ("seed000-nbm-iris-fig5.3-quick.png", "seed000-nbm-iris-fig5.4-quick.png"):
        assert (tmp_path / "figures" / f).stat().st_size > 1000


def test_maps_quick_with_shared_data(tmp_path, shared_datasets):
    path = maps.run(tmp_path / "maps.md", quick=True, datasets=["Iris"], data_home=shared_datasets, **QUIET)
    text = path.read_text()
    pca = next(line for line in text.splitlines() if line.startswith("| Iris | PCA |"))
    m1 = [float(c) for c in pca.strip("|").split("|")[2:5]]
    assert all(0.95 < v <= 1.0 for v in m1)                       # PCA is a good map of Iris
    assert "| Iris | PCA best M1, > 0.97 for all k |" in text
    assert "checked statements hold." in text
    assert (tmp_path / "figures" / "seed000-nbm-maps-iris-quick.png").exists()


def test_maps_missing_data_and_statement_checks(tmp_path, monkeypatch):
    monkeypatch.delenv("PGMPY_EXT_DATA", raising=False)
    monkeypatch.setattr("pgmpy_ext.datasets._loader._REPO_ROOT", tmp_path / "no" / "repo")
    text = maps.run(tmp_path / "m.md", quick=True, datasets=["Wine"], **QUIET).read_text()
    assert "| Wine | not available |" in text
    # the statement checks read the curves as stated
    ks = len(maps.KS)
    r = {"PCA": {"T": np.full(ks, 0.98), "C": np.full(ks, 0.99)},
         "NBM": {"T": np.full(ks, 0.96), "C": np.full(ks, 0.985)},
         "SOM": {"T": np.full(ks, 0.91), "C": np.full(ks, 0.9)},
         "GTM": {"T": np.full(ks, 0.92), "C": np.full(ks, 0.95)}}
    checks = {(d, t): c for d, t, _, c in maps.STATEMENTS}
    assert checks["Iris", "PCA best M1, > 0.97 for all k"](r)
    assert checks["Iris", "NBM close behind PCA (second M1)"](r)
    assert checks["Iris", "M2: NBM ~ PCA best"](r)
    assert not checks["Pima", "SOM best M1"](r)


def _record_nbm(monkeypatch):
    """Patch NaiveBayesMap with a subclass that records the parameters of every fit."""
    from pgmpy_ext.maps import NaiveBayesMap

    seen = []

    class Recording(NaiveBayesMap):
        def fit(self, X, y=None):
            seen.append(self.get_params())
            return super().fit(X, y)

    monkeypatch.setattr("pgmpy_ext.maps.NaiveBayesMap", Recording)
    return seen


def test_maps_nbm_option_reaches_the_estimator(tmp_path, monkeypatch, shared_datasets):
    from pgmpy_ext.maps import THESIS_RULE, NaiveBayesMap

    defaults = NaiveBayesMap().get_params()
    seen = _record_nbm(monkeypatch)
    text = maps.run(tmp_path / "d.md", quick=True, datasets=["Iris"], data_home=shared_datasets, nbm="default",
                    **QUIET).read_text()
    assert len(seen) == 1
    for key in ("init", "var_floor", "n_init", "n_epochs", "variance_update", "standardize"):
        assert seen[0][key] == defaults[key], key
    assert seen[0]["init"] != THESIS_RULE["init"]
    assert seen[0]["var_floor"] != THESIS_RULE["var_floor"]
    assert "NaiveBayesMap()`'s defaults" in text
    assert "Load average" in text
    assert (tmp_path / "figures" / "seed000-nbm-maps-iris-nbm-default-quick.png").exists()

    seen.clear()
    maps.run(tmp_path / "t.md", quick=True, datasets=["Iris"], data_home=shared_datasets, **QUIET)
    assert len(seen) == 1                                          # the reproduction's default: the thesis's rule
    assert {k: seen[0][k] for k in THESIS_RULE} == THESIS_RULE
    assert seen[0]["n_init"] == 2

    seen.clear()
    text = maps.run(tmp_path / "b.md", quick=True, datasets=["Iris"], data_home=shared_datasets, nbm="both",
                    **QUIET).read_text()
    assert [p["init"] for p in seen] == [THESIS_RULE["init"], defaults["init"]]
    assert "| data set | statement (thesis, section 8.5) | NBM: thesis | NBM: default |" in text
    for part in ("* NBM thesis: ", "* NBM default: ", "## T(10) / C(10) per data set"):
        assert part in text
    with pytest.raises(ValueError, match="nbm == 'paper'"):
        maps.run(tmp_path / "x.md", quick=True, nbm="paper", **QUIET)


def test_cli_nbm_and_som_budget_options(tmp_path, monkeypatch, capsys):
    from pgmpy_ext.cli import main

    seen = {}

    def fake(output=None, *, output_dir=None, quick=False, n_jobs=None, nbm="thesis", som_epochs=None,
             som_runs=None):
        seen.update(nbm=nbm, som_epochs=som_epochs, som_runs=som_runs)
        return output

    monkeypatch.setattr(maps, "run", fake)
    assert main(["reproduce", "seed000-nbm-maps", "--output", str(tmp_path / "a.md"), "--nbm", "both",
                 "--som-epochs", "7", "--som-runs", "2"]) == 0
    assert seen == {"nbm": "both", "som_epochs": 7, "som_runs": 2}
    assert main(["reproduce", "seed000-nbm-maps", "--output", str(tmp_path / "a.md")]) == 0
    assert seen == {"nbm": "thesis", "som_epochs": None, "som_runs": None}
    assert main(["reproduce", "seed000-nbm-iris", "--output", str(tmp_path / "b.md"), "--nbm", "default"]) == 2
    assert "has no --nbm option" in capsys.readouterr().err
