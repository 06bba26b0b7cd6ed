"""``pgmpy-ext fit`` and ``pgmpy-ext predict`` end to end on small files written to tmp_path (offline, seconds)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD, VariableElimination
from pgmpy_ext.classifiers import (
    ABNClassifier,
    BANClassifier,
    CLMultinetClassifier,
    CTANClassifier,
    FANClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    SBNClassifier,
    SelectiveNBClassifier,
    StructuralTMClassifier,
    TANClassifier,
)
from pgmpy_ext.cli import main
from pgmpy_ext.io import read_bif, read_xmlbif, write_xmlbif
from pgmpy_ext.parameters import TMEstimator
from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer, MDLPDiscretizer


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.75, y, 1 - y)
    return pd.DataFrame({
        "color": np.where(rng.random(n) < 0.7, np.where(y == 1, "red", "blue"), "green"),
        "size": np.where(rng.random(n) < 0.6, a + 1, rng.integers(1, 4, n)),
        "flag": a,
        "temp": np.round(rng.normal(size=n) + 1.2 * y, 3),  # real-valued: discretised at fit, cut points saved
        "label": np.where(y == 1, "yes", "no"),
    })


@pytest.fixture
def files(tmp_path):
    """A training file (80 rows) and a file of 25 new rows with an id column and every value seen in training."""
    train = _frame(80, 0)
    new = _frame(25, 1)
    new.insert(0, "id", [f"r{i:02d}" for i in range(25)])
    (tmp_path / "train.csv").write_text(train.to_csv(index=False))
    (tmp_path / "new.csv").write_text(new.to_csv(index=False))
    return tmp_path / "train.csv", tmp_path / "new.csv", train, new


# (command-line name, extra CLI arguments, the library estimator fitted the same way)
LEARNERS = [
    ("nb", [], NaiveBayesClassifier(alpha=1.0)),
    ("tan", [], TANClassifier(alpha=1.0)),
    ("fan", [], FANClassifier(alpha=1.0)),
    ("kdb", ["--param", "k=2"], KDBClassifier(alpha=1.0, k=2)),
    ("ban", [], BANClassifier(alpha=1.0, random_state=0)),
    ("sbn", [], SBNClassifier(alpha=1.0)),
    ("abn", [], ABNClassifier(alpha=1.0)),
    ("snb", [], SelectiveNBClassifier(alpha=1.0)),
    ("cl-multinet", [], CLMultinetClassifier(alpha=1.0)),
    ("ctan", [], CTANClassifier(alpha=1.0)),
    ("structural-tm", ["--param", "solver=lbfgs"], StructuralTMClassifier(alpha=1.0, solver="lbfgs")),
    ("tan-tm", ["--tm-solver", "lbfgs"],
     TANClassifier(alpha=1.0, estimator=TMEstimator(alpha=1.0, solver="lbfgs"))),
]


def _predictions(path) -> pd.DataFrame:
    return pd.read_csv(path, index_col=0)


# every learner through XMLBIF; two through BIF too (pgmpy's BIF parser takes seconds per file, so not all of them)
CASES = [(*x, ".xml") for x in LEARNERS] + [(*x, ".bif") for x in LEARNERS if x[0] in ("tan", "cl-multinet")]


@pytest.mark.parametrize(("name", "extra", "reference", "suffix"), CASES, ids=[f"{x[0]}{x[3]}" for x in CASES])
def test_fit_predict_round_trip_equals_library(files, tmp_path, capsys, name, extra, reference, suffix):
    train_csv, new_csv, train, new = files
    model = tmp_path / f"model{suffix}"
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--learner", name, *extra,
                 "--output", str(model), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "# columns: 1 discretised (equal-frequency, 5 bins, on all the rows): temp; 3 kept as categorical " \
           "(states): color (3), size (3), flag (2)" in out
    side = json.loads(model.with_suffix(".json").read_text())
    assert side["class_node"] == "label"
    assert side["classes"] == ["no", "yes"]
    assert side["features"] == ["color", "size", "flag", "temp"]
    assert len(side["discretizer"]["cut_points"]["temp"]) == 4
    assert side["tm_solver"] == ("lbfgs" if name == "tan-tm" else None)
    net = (read_bif if suffix == ".bif" else read_xmlbif)(model)
    assert net.check_model()
    # predict from the sidecar, with the user's row labels
    preds = tmp_path / "pred.csv"
    assert main(["predict", "--model", str(model.with_suffix(".json")), "--data", str(new_csv), "--index-col", "id",
                 "--output", str(preds)]) == 0
    got = _predictions(preds)
    lib = make_pipeline(EqualFrequencyDiscretizer(5, columns=["temp"]), reference)
    lib.fit(train.drop(columns="label"), train["label"])
    X_new = new.drop(columns=["id", "label"])
    assert got.index.tolist() == new["id"].tolist()
    assert list(got.columns) == ["prediction", "P(no)", "P(yes)"]
    np.testing.assert_allclose(got[["P(no)", "P(yes)"]].to_numpy(), lib.predict_proba(X_new), rtol=0, atol=1e-9)
    assert got["prediction"].tolist() == lib.predict(X_new).tolist()
    # the network file alone finds its sidecar and gives the same answer
    assert main(["predict", "--model", str(model), "--data", str(new_csv), "--output", str(tmp_path / "p2.csv")]) == 0
    np.testing.assert_array_equal(_predictions(tmp_path / "p2.csv").to_numpy(), got.to_numpy())


def test_fit_mdlp_and_stdout(files, tmp_path, capsys):
    train_csv, new_csv, train, new = files
    model = tmp_path / "nb.xml"
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--learner", "nb", "--discretize", "mdlp",
                 "--output", str(model), "--no-progress"]) == 0
    assert "discretised (mdlp, on all the rows): temp" in capsys.readouterr().out
    assert main(["predict", "--model", str(model), "--data", str(new_csv)]) == 0
    captured = capsys.readouterr()
    got = pd.read_csv(io.StringIO(captured.out), index_col=0)
    lib = make_pipeline(MDLPDiscretizer(columns=["temp"]), NaiveBayesClassifier()).fit(train.drop(columns="label"),
                                                                                       train["label"])
    want = lib.predict_proba(new.drop(columns=["id", "label"]))
    np.testing.assert_allclose(got[["P(no)", "P(yes)"]].to_numpy(), want, rtol=0, atol=1e-9)
    assert got.index.tolist() == list(range(25))
    assert "# accuracy on the 25 row(s) with a class:" in captured.err  # notes go to stderr when the CSV is on stdout


@pytest.mark.parametrize("learner", [["nb"], ["kdb", "--param", "k=2"]], ids=["nb-batch", "kdb-ve"])
def test_predict_unseen_and_missing_are_summed_out_exactly(files, tmp_path, capsys, monkeypatch, learner):
    """NB's missing features are leaves (dropped in the batch kernel); kDB's have observed children (exact
    VariableElimination): both must equal VariableElimination on the network with those cells left out."""
    train_csv, _, _, _ = files
    model = tmp_path / "kdb.xml"
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--learner", *learner,
                 "--output", str(model), "--no-progress"]) == 0
    capsys.readouterr()
    rows = pd.DataFrame({"id": ["a7", "b2", "c9", "d1"], "color": ["purple", "red", None, "blue"],
                         "size": [1, None, 3, 2], "flag": [0, 1, 1, 0], "temp": [0.3, 1.2, None, -9.0]})
    path = tmp_path / "odd.csv"
    rows.to_csv(path, index=False)
    if learner == ["nb"]:  # every missing NB feature is a leaf: the batch kernel answers, pgmpy inference is not used

        def no_ve(*args, **kwargs):
            raise AssertionError("VariableElimination called for naive Bayes")

        monkeypatch.setattr("pgmpy_ext._compat.VariableElimination", no_ve)
    assert main(["predict", "--model", str(model), "--data", str(path), "--index-col", "id",
                 "--output", str(tmp_path / "p.csv")]) == 0
    out = capsys.readouterr().out
    assert "# values not seen during fit, summed out as missing: color (1)" in out
    assert "# 3 missing cell(s) summed out exactly (in 2 rows)" in out
    got = _predictions(tmp_path / "p.csv")
    net = read_xmlbif(model)
    side = json.loads(model.with_suffix(".json").read_text())
    cuts = np.asarray(side["discretizer"]["cut_points"]["temp"])
    ve = VariableElimination(net)
    evidence = [{"size": 1, "flag": 0, "temp": int(np.searchsorted(cuts, 0.3, side="right"))},  # purple left out
                {"color": "red", "flag": 1, "temp": int(np.searchsorted(cuts, 1.2, side="right"))},
                {"size": 3, "flag": 1},
                {"color": "blue", "size": 2, "flag": 0, "temp": 0}]  # below the range: the first bin
    for r, ev in zip(rows["id"], evidence):
        q = ve.query(["label"], evidence=ev, show_progress=False)
        want = [q.values[q.state_names["label"].index(c)] for c in ("no", "yes")]
        np.testing.assert_allclose(got.loc[r, ["P(no)", "P(yes)"]].to_numpy(float), want, rtol=0, atol=1e-9)
    assert main(["predict", "--model", str(model), "--data", str(path), "--index-col", "id",
                 "--handle-unknown", "error"]) == 2
    assert "column 'color' has value 'purple' at row 'a7' that was not seen during fit (known: ['blue', 'green', " \
           "'red'])" in capsys.readouterr().err
    assert main(["predict", "--model", str(model), "--data", str(path), "--index-col", "id", "--missing", "error"]) == 2
    assert "column 'size' has a missing value at row 'b2'" in capsys.readouterr().err


def test_predict_any_network_with_target(tmp_path, capsys):
    bn = DiscreteBayesianNetwork([("C", "A"), ("C", "B"), ("A", "B")])
    bn.add_cpds(TabularCPD("C", 2, [[0.4], [0.6]], state_names={"C": ["n", "y"]}),
                TabularCPD("A", 2, [[0.9, 0.3], [0.1, 0.7]], evidence=["C"], evidence_card=[2],
                           state_names={"A": [0, 1], "C": ["n", "y"]}),
                TabularCPD("B", 2, [[0.8, 0.5, 0.6, 0.1], [0.2, 0.5, 0.4, 0.9]], evidence=["A", "C"],
                           evidence_card=[2, 2], state_names={"B": ["lo", "hi"], "A": [0, 1], "C": ["n", "y"]}))
    write_xmlbif(bn, tmp_path / "net.xml")
    pd.DataFrame({"A": [0, 1, 1], "B": ["lo", "hi", "lo"]}).to_csv(tmp_path / "x.csv", index=False)
    args = ["predict", "--model", str(tmp_path / "net.xml"), "--data", str(tmp_path / "x.csv")]
    assert main(args) == 2
    assert "has no sidecar 'net.json'" in capsys.readouterr().err
    assert main([*args, "--target", "Z"]) == 2
    assert "--target 'Z' is not a node" in capsys.readouterr().err
    assert main([*args, "--target", "C", "--output", str(tmp_path / "p.csv")]) == 0
    got = _predictions(tmp_path / "p.csv")
    ve = VariableElimination(bn)
    for r, ev in enumerate([{"A": 0, "B": "lo"}, {"A": 1, "B": "hi"}, {"A": 1, "B": "lo"}]):
        np.testing.assert_allclose(got.loc[r, ["P(n)", "P(y)"]].to_numpy(float),
                                   ve.query(["C"], evidence=ev, show_progress=False).values, rtol=0, atol=1e-12)


def test_fit_progress_bar_on_by_default(files, tmp_path, capsys):
    train_csv, _, _, _ = files
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--learner", "ban",
                 "--output", str(tmp_path / "m.xml")]) == 0
    assert "K2 search" in capsys.readouterr().err  # the learner's own bar, as evaluate shows its bar
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--learner", "ban",
                 "--output", str(tmp_path / "m.xml"), "--no-progress"]) == 0
    assert "K2 search" not in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["--target", "nope"], "--target 'nope' is not a column of"),
    (["--target", "label", "--learner", "xyz"], "unknown learner 'xyz'; available: abn, ban, clmn"),
    (["--target", "label", "--learner", "nb,tan"], "--learner takes one name, got 'nb,tan'"),
    (["--target", "label", "--learner", "structuraltm-tm"], "takes no parameter estimator"),
    (["--target", "label", "--param", "kk=2", "--learner", "kdb"], "--param 'kk' is not an option of KDBClassifier"),
    (["--target", "label", "--param", "k"], "--param 'k' must look like NAME=VALUE"),
    (["--target", "label", "--discretize", "none"], "columns ['temp'] have real values; pass --discretize"),
    (["--target", "label", "--output-format-is-the-suffix"], None),
], ids=["target", "learner", "two-learners", "tm-suffix", "param", "param-syntax", "continuous", "argparse"])
def test_fit_errors(files, tmp_path, capsys, argv, message):
    train_csv, _, _, _ = files
    full = ["fit", "--data", str(train_csv), *argv, "--output", str(tmp_path / "m.xml"), "--no-progress"]
    if message is None:
        with pytest.raises(SystemExit, match="2"):
            main(full)
        return
    assert main(full) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.xml").exists()


def test_fit_and_predict_file_errors(files, tmp_path, capsys):
    train_csv, new_csv, _, _ = files
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--output", str(tmp_path / "m.txt")]) == 2
    assert "must end in .bif (BIF) or .xml/.xmlbif (XMLBIF)" in capsys.readouterr().err
    assert main(["fit", "--data", str(train_csv), "--output", str(tmp_path / "m.xml")]) == 2
    assert "--data needs --target" in capsys.readouterr().err
    assert main(["predict", "--model", str(tmp_path / "none.json"), "--data", str(new_csv)]) == 2
    assert "is not a file" in capsys.readouterr().err
    (tmp_path / "other.json").write_text('{"a": 1}')
    assert main(["predict", "--model", str(tmp_path / "other.json"), "--data", str(new_csv)]) == 2
    assert "is not a model file written by 'pgmpy-ext fit'" in capsys.readouterr().err
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--output", str(tmp_path / "m.xml"),
                 "--no-progress"]) == 0
    side = json.loads((tmp_path / "m.json").read_text())
    assert side["tm_solver"] is None
    (tmp_path / "m.xml").rename(tmp_path / "moved.xml")
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", str(new_csv)]) == 2
    assert "the network file" in capsys.readouterr().err
    (tmp_path / "moved.xml").write_text("<not a network")
    assert main(["predict", "--model", str(tmp_path / "moved.xml"), "--data", str(new_csv), "--target", "label"]) == 2
    assert "could not read the network" in capsys.readouterr().err
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--output", str(tmp_path / "m.xml"),
                 "--no-progress"]) == 0
    pd.DataFrame({"color": ["red"]}).to_csv(tmp_path / "short.csv", index=False)
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", str(tmp_path / "short.csv")]) == 2
    assert "the data lack the model's feature column(s)" in capsys.readouterr().err
    pd.DataFrame({"color": ["red"], "size": [1], "flag": [0], "temp": ["warm"]}).to_csv(tmp_path / "w.csv",
                                                                                       index=False)
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", str(tmp_path / "w.csv")]) == 2
    assert "column 'temp' was discretised at fit time but has the non-numeric value 'warm' at row 0" in \
        capsys.readouterr().err


def test_fit_keeps_missing_training_cells_as_the_library_does(files, tmp_path, capsys):
    """A missing feature cell in the training file is kept (available-case counts), as in the library."""
    train_csv, new_csv, train, new = files
    holes = train.copy()
    holes.iloc[2, 0] = np.nan
    holes_csv = tmp_path / "holes.csv"
    holes.to_csv(holes_csv, index=False)
    model = tmp_path / "nb.xml"
    assert main(["fit", "--data", str(holes_csv), "--target", "label", "--learner", "nb", "--discretize", "mdlp",
                 "--output", str(model), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--data", str(new_csv)]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col=0)
    lib = make_pipeline(MDLPDiscretizer(columns=["temp"]), NaiveBayesClassifier()).fit(holes.drop(columns="label"),
                                                                                       holes["label"])
    want = lib.predict_proba(new.drop(columns=["id", "label"]))
    np.testing.assert_allclose(got[["P(no)", "P(yes)"]].to_numpy(), want, rtol=0, atol=1e-9)


@pytest.mark.parametrize("learner", ["tan", "cl-multinet"])
def test_fit_plot_saves_the_structure_as_png(files, tmp_path, capsys, learner):
    pytest.importorskip("matplotlib")
    train_csv, _, _, _ = files
    picture = tmp_path / "structure.png"
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--learner", learner, "--output",
                 str(tmp_path / "m.xml"), "--plot", str(picture), "--no-progress"]) == 0
    assert f"# structure picture saved to {picture}" in capsys.readouterr().out
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "m.xml").exists()


def test_fit_plot_refuses_an_unknown_picture_type_before_fitting(files, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    train_csv, _, _, _ = files
    assert main(["fit", "--data", str(train_csv), "--target", "label", "--output", str(tmp_path / "m.xml"),
                 "--plot", str(tmp_path / "structure.bmpx"), "--no-progress"]) == 2
    assert "matplotlib cannot write 'bmpx'" in capsys.readouterr().err
    assert not (tmp_path / "m.xml").exists()
