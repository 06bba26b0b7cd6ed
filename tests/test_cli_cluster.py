"""``pgmpy-ext cluster`` and ``pgmpy-ext reproduce --output-dir`` end to end (offline, seconds)."""

from __future__ import annotations

import io
import sys
import types

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.cli import main
from pgmpy_ext.clustering import CEMClustering
from pgmpy_ext.datasets import make_corral
from pgmpy_ext.evaluation import clustering_accuracy
from pgmpy_ext.io import read_xmlbif


@pytest.fixture
def corral_csv(tmp_path):
    X, y = make_corral()
    path = tmp_path / "corral.csv"
    X.assign(label=y).to_csv(path, index=False)
    return path, X, y


@pytest.mark.parametrize("model", ["cl", "tan", "sbn"])
def test_cluster_writes_k_labels_equal_to_the_library(corral_csv, tmp_path, capsys, model):
    path, X, y = corral_csv
    out, net = tmp_path / "labels.csv", tmp_path / "cem.xml"
    assert main(["cluster", "--data", str(path), "--target", "label", "--n-clusters", "2", "--model", model,
                 "--n-init", "2", "--random-state", "3", "--output", str(out), "--model-output", str(net),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert f"# corral.csv: 128 rows, 6 features; CEM-{model.upper()}, 2 clusters, 2 restart(s), alpha 0.5, seed 3" \
        in text
    assert "# columns: 0 discretised (equal-frequency, 5 bins, on all the rows): none; 6 kept as categorical " \
           "(states): A0 (2), A1 (2), B0 (2), B1 (2), Irrelevant (2), Correlated (2)" in text
    got = pd.read_csv(out, index_col=0)
    assert list(got.columns) == ["cluster", "P(0)", "P(1)"]
    assert len(got) == 128
    assert set(got["cluster"]) == {0, 1}  # K labels, both clusters used on Corral
    np.testing.assert_allclose(got[["P(0)", "P(1)"]].sum(axis=1), 1.0, rtol=0, atol=1e-12)
    lib = CEMClustering(n_clusters=2, model=model, n_init=2, random_state=3, n_jobs=1).fit(X)
    np.testing.assert_array_equal(got["cluster"].to_numpy(), lib.labels_)
    assert f"by vote {clustering_accuracy(y, lib.labels_):.4f}" in text  # the class column is left out, reported
    back = read_xmlbif(net)
    assert back.check_model()
    assert "cluster" in back.nodes()
    assert "label" not in back.nodes()


@pytest.mark.parametrize("method", ["em", "ema"])
def test_cluster_latent_class_methods_equal_the_library(corral_csv, tmp_path, capsys, method):
    from pgmpy_ext.clustering import EMAClustering, LatentClassEM

    path, X, _ = corral_csv
    out, net = tmp_path / "labels.csv", tmp_path / "lc.bif"
    assert main(["cluster", "--data", str(path), "--target", "label", "--n-clusters", "2", "--method", method,
                 "--n-init", "2", "--random-state", "3", "--output", str(out), "--model-output", str(net),
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "2 clusters, 2 restart(s), alpha 1.0, seed 3" in text
    lib = (LatentClassEM if method == "em" else EMAClustering)(2, n_init=2, random_state=3).fit(X)
    got = pd.read_csv(out, index_col=0)
    np.testing.assert_array_equal(got["cluster"].to_numpy(), lib.labels_)
    np.testing.assert_allclose(got[["P(0)", "P(1)"]].to_numpy(), lib.predict_proba(X), rtol=1e-9)
    assert f"# log-likelihood {lib.log_likelihood_:.4f}" in text
    assert ("posterior of each arc cluster -> feature: A0:" in text) == (method == "ema")
    assert net.is_file()


def test_cluster_discretises_stdout_and_progress(tmp_path, capsys):
    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, 90)
    frame = pd.DataFrame({"a": np.where(rng.random(90) < 0.85, z, 1 - z), "b": np.where(z == 1, "u", "v"),
                          "x": rng.normal(size=90) + 3 * z})
    frame.to_csv(tmp_path / "f.csv", index=False)
    assert main(["cluster", "--data", str(tmp_path / "f.csv"), "--n-clusters", "3", "--n-init", "2",
                 "--discretize", "equal-width", "--bins", "4"]) == 0
    captured = capsys.readouterr()
    labels = pd.read_csv(io.StringIO(captured.out), index_col=0)
    assert len(labels) == 90
    assert labels["cluster"].between(0, 2).all()
    assert "# columns: 1 discretised (equal-width, 4 bins, on all the rows): x; 2 kept as categorical (states): " \
           "a (2), b (2)" in captured.err
    assert "CEM-CL starts" in captured.err  # progress bar on by default in the CLI


def test_cluster_errors(corral_csv, tmp_path, capsys):
    path, _, _ = corral_csv
    with pytest.raises(SystemExit, match="2"):  # mdlp is supervised: not a choice for clustering
        main(["cluster", "--data", str(path), "--n-clusters", "2", "--discretize", "mdlp"])
    assert "invalid choice: 'mdlp'" in capsys.readouterr().err
    assert main(["cluster", "--data", str(path), "--target", "nope", "--n-clusters", "2"]) == 2
    assert "--target 'nope' is not a column" in capsys.readouterr().err
    assert main(["cluster", "--data", str(path), "--n-clusters", "2", "--model-output", str(tmp_path / "m.txt")]) == 2
    assert "--model-output" in capsys.readouterr().err
    assert main(["cluster", "--data", str(path), "--n-clusters", "0", "--no-progress"]) == 2
    assert "n_clusters == 0, must be >= 1" in capsys.readouterr().err


def _fake_reproduction(monkeypatch, with_output_dir: bool):
    from pgmpy_ext.experiments import REPRODUCTIONS, Reproduction

    calls = {}
    if with_output_dir:
        def run(output=None, *, quick=False, n_jobs=None, output_dir=None):
            calls.update(output=output, output_dir=output_dir)
            path = output if output is not None else output_dir / "fake.md"
            path.write_text("report")
            return path
    else:
        def run(output=None, *, quick=False, n_jobs=None):
            calls.update(output=output)
            output.write_text("report")
            return output
    module = types.ModuleType("pgmpy_ext.experiments._fake_for_tests")
    module.run = run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(REPRODUCTIONS, "fake", Reproduction("fake", "a fake", "_fake_for_tests"))
    return calls


@pytest.mark.parametrize("with_output_dir", [True, False], ids=["output_dir-keyword", "older-run"])
def test_reproduce_writes_into_output_dir(tmp_path, monkeypatch, capsys, with_output_dir):
    calls = _fake_reproduction(monkeypatch, with_output_dir)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    assert main(["reproduce", "fake", "--output-dir", "sub", "--quick"]) == 0
    assert (tmp_path / "sub" / "fake.md").read_text() == "report"
    assert "report written to sub/fake.md" in capsys.readouterr().out
    assert main(["reproduce", "fake", "--quick"]) == 0  # default: the current directory
    assert (tmp_path / "fake.md").exists()
    if with_output_dir:
        assert calls["output"] is None
        assert str(calls["output_dir"]) == "."
    assert main(["reproduce", "nope"]) == 2
    assert "unknown reproduction 'nope'" in capsys.readouterr().err
