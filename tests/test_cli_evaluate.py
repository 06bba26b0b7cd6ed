"""``pgmpy-ext evaluate`` end to end on small files written to tmp_path (offline, a few seconds)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

import pgmpy_ext.datasets
from pgmpy_ext.cli import main
from pgmpy_ext.cli._evaluate import available_learners
from pgmpy_ext.evaluation import RESULT_COLUMNS


@pytest.fixture
def csv_file(tmp_path):
    rng = np.random.default_rng(0)
    n = 60
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "color": np.where(rng.random(n) < 0.8, np.where(y == 1, "red", "blue"), "green"),
        "size": rng.integers(1, 4, n),
        "temp": rng.normal(size=n) + 1.5 * y,  # real-valued: cut into bins per training fold
        "label": np.where(y == 1, "yes", "no"),
    })
    path = tmp_path / "toy.csv"
    frame.to_csv(path, index=False)
    return path


def test_evaluate_csv_end_to_end(csv_file, tmp_path, capsys):
    out_csv, out_png = tmp_path / "res.csv", tmp_path / "acc.png"
    code = main(["evaluate", "--data", str(csv_file), "--target", "label", "--learners", "nb,tan", "--folds", "3",
                 "--seed", "1", "--bins", "3", "--output", str(out_csv), "--plot", str(out_png), "--no-progress"])
    assert code == 0
    captured = capsys.readouterr()
    assert "cross-validation" not in captured.err
    out = captured.out
    assert "# 3-fold CV, 1 run(s), seed 1, 60 rows, alpha=1.0; 1 real-valued column(s) cut per training fold " \
           "(equal-frequency, 3 bins)" in out
    assert "| learner | accuracy % (mean ± std) |" in out
    res = pd.read_csv(out_csv)
    assert list(res.columns) == list(RESULT_COLUMNS)
    assert len(res) == 6
    assert list(dict.fromkeys(res["learner"])) == ["NB", "TAN"]
    for name, g in res.groupby("learner", sort=False):
        acc = g["accuracy"].to_numpy()
        line = next(ln for ln in out.splitlines() if ln.startswith(f"| {name} |"))
        assert f"{100 * acc.mean():.2f} ± {100 * acc.std(ddof=0):.2f}" in line
    assert "| NB | TAN |" in out
    assert "Wilcoxon p" in out
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # --plot draws what the README promises: the folds of this one data set, mean and confidence interval
    assert f"fold-accuracy plot (folds as points, mean and 95% confidence interval) saved to {out_png}" in out
    assert "# columns: 1 discretised (equal-frequency, 3 bins, per training fold): temp; 2 kept as categorical " \
           "(states): color (3), size (3)" in out


def test_evaluate_tsv_loo_with_progress_bar(tmp_path, capsys):
    X = pd.DataFrame({"a": [0, 1] * 6, "b": [1, 1, 0] * 4, "cls": ["u", "v", "u", "u", "v", "v"] * 2})
    path = tmp_path / "tiny.tsv"
    X.to_csv(path, sep="\t", index=False)
    assert main(["evaluate", "--data", str(path), "--target", "cls", "--cv", "loo", "--learners", "nb",
                 "--discretize", "none", "--output", str(tmp_path / "r.csv")]) == 0
    captured = capsys.readouterr()
    assert "cross-validation" in captured.err  # progress bar on by default in the CLI
    assert "leave-one-out" in captured.out
    assert "accuracy % (± se)" in captured.out
    res = pd.read_csv(tmp_path / "r.csv")
    assert len(res) == 12
    assert (res["n_test"] == 1).all()


def test_evaluate_dataset_through_load_dataset(monkeypatch, capsys):
    def fake_load_dataset(name):
        assert name == "toy"
        X = pd.DataFrame({"a": [0, 1, 0, 1] * 5, "b": [0, 0, 1, 1] * 5})
        return X, pd.Series(["p", "q", "q", "p"] * 5, name="y")

    monkeypatch.setattr(pgmpy_ext.datasets, "load_dataset", fake_load_dataset, raising=False)
    assert main(["evaluate", "--dataset", "toy", "--learners", "tan", "--cv", "stratified", "--folds", "2",
                 "--no-progress"]) == 0
    assert "| TAN | 100.00 ± 0.00 |" in capsys.readouterr().out


def test_evaluate_dataset_without_load_dataset(monkeypatch, capsys):
    monkeypatch.delattr(pgmpy_ext.datasets, "load_dataset", raising=False)
    assert main(["evaluate", "--dataset", "corral", "--no-progress"]) == 2
    assert "needs pgmpy_ext.datasets.load_dataset" in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "message"), [
    (["--discretize", "none"], "columns ['temp'] have real values; pass --discretize"),
    (["--learners", "nb,xyz"], "unknown learner(s) ['xyz']; available:"),
    (["--folds", "100"], "larger than the number of rows"),
    (["--bins", "1"], "argument --bins: 1 is below 2; give an integer >= 2"),
], ids=["continuous", "learner", "folds", "bins"])
def test_evaluate_usage_errors(csv_file, capsys, extra, message):
    try:
        status = main(["evaluate", "--data", str(csv_file), "--target", "label", "--no-progress", *extra])
    except SystemExit as stop:  # argparse's own one-line error (an option's value)
        status = stop.code
    assert status == 2
    assert message in capsys.readouterr().err


def test_evaluate_data_errors(csv_file, tmp_path, capsys, monkeypatch):
    assert main(["evaluate", "--data", str(csv_file), "--target", "nope", "--no-progress"]) == 2
    assert "--target 'nope' is not a column" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(csv_file), "--no-progress"]) == 2
    assert "--data needs --target" in capsys.readouterr().err
    assert main(["evaluate", "--no-progress"]) == 2
    assert "give the data: --data FILE --target COLUMN, or --dataset NAME" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(tmp_path / "missing.csv"), "--target", "y"]) == 2
    assert "does not exist" in capsys.readouterr().err
    holes = pd.read_csv(csv_file)
    holes.loc[3, "size"] = np.nan
    holes.to_csv(tmp_path / "holes.csv", index=False)
    args = ["evaluate", "--data", str(tmp_path / "holes.csv"), "--target", "label", "--folds", "3", "--no-progress"]
    assert main(args) == 0  # a missing feature cell is kept: available-case counts, summed out at predict
    assert "60 rows" in capsys.readouterr().out
    assert main([*args, "--dropna"]) == 0
    assert "59 rows" in capsys.readouterr().out
    holes.loc[5, "label"] = np.nan
    holes.to_csv(tmp_path / "holes.csv", index=False)
    assert main(args) == 2
    assert "1 row(s) have a missing class label (first: row 5); pass --dropna" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "pgmpy_ext.preprocessing", None)  # import fails
    assert main(["evaluate", "--data", str(csv_file), "--target", "label", "--discretize", "mdlp"]) == 2
    assert "--discretize mdlp needs pgmpy_ext.preprocessing" in capsys.readouterr().err


def test_learner_discovery_and_list(capsys):
    avail = available_learners()
    assert avail["nb"].__name__ == "NaiveBayesClassifier"
    assert avail["tan"].__name__ == "TANClassifier"
    assert "bnclassifierbase" not in avail
    assert main(["evaluate", "--learners", "list"]) == 0
    listed = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert listed == {k: v.__name__ for k, v in avail.items()}


@pytest.mark.parametrize(("kind", "described"), [("equal-width", "(equal-width, 4 bins)"), ("mdlp", "(mdlp)")],
                         ids=["equal-width", "mdlp"])
def test_evaluate_other_discretisers(csv_file, tmp_path, capsys, kind, described):
    out_csv = tmp_path / f"{kind}.csv"
    assert main(["evaluate", "--data", str(csv_file), "--target", "label", "--learners", "nb", "--folds", "3",
                 "--discretize", kind, "--bins", "4", "--output", str(out_csv), "--no-progress"]) == 0
    assert f"1 real-valued column(s) cut per training fold {described}" in capsys.readouterr().out
    assert len(pd.read_csv(out_csv)) == 3


@pytest.mark.parametrize("solver", ["tm", "lbfgs"])
def test_evaluate_tm_learners(csv_file, tmp_path, capsys, solver):
    out_csv = tmp_path / "res.csv"
    code = main(["evaluate", "--data", str(csv_file), "--target", "label", "--learners", "nb,nb-tm,tan-tm,ctan-tm",
                 "--folds", "3", "--bins", "3", "--tm-solver", solver, "--output", str(out_csv), "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert f"; TM solver {solver}" in out
    res = pd.read_csv(out_csv)
    assert list(dict.fromkeys(res["learner"])) == ["NB", "NB-TM", "TAN-TM", "CTAN-TM"]
    tm = res[res["learner"] != "NB"]
    assert (tm["n_iter"] >= 1).all()  # the TM ran (iterations reported through estimator_)
    nb, nbtm = (res[res["learner"] == k].sort_values("fold") for k in ("NB", "NB-TM"))
    # the TM maximises the training CLL: never below the generative start on any fold
    assert (nbtm["train_cll"].to_numpy() >= nb["train_cll"].to_numpy() - 1e-9).all()


def test_plot_draws_the_fold_accuracies(csv_file, tmp_path, capsys, monkeypatch):
    import pgmpy_ext.evaluation

    drawn = []
    real = pgmpy_ext.evaluation.plot_fold_accuracies

    def spy(results, *args, **kwargs):
        ax = real(results, *args, **kwargs)
        drawn.append((results, kwargs, ax))
        return ax

    monkeypatch.setattr(pgmpy_ext.evaluation, "plot_fold_accuracies", spy)
    for learners in ("nb", "nb,tan"):  # one learner too: no bar-chart fallback any more
        png, out_csv = tmp_path / f"{learners}.png", tmp_path / f"{learners}.csv"
        assert main(["evaluate", "--data", str(csv_file), "--target", "label", "--learners", learners, "--folds", "3",
                     "--plot", str(png), "--output", str(out_csv), "--no-progress"]) == 0
        assert "fold-accuracy plot (folds as points, mean and 95% confidence interval) saved" in \
            capsys.readouterr().out
        assert png.read_bytes()[:4] == b"\x89PNG"
        results, kwargs, ax = drawn[-1]
        assert kwargs == {"dataset": "toy.csv"}
        names = list(dict.fromkeys(pd.read_csv(out_csv)["learner"]))
        assert [t.get_text() for t in ax.get_yticklabels()] == names
        for name in names:
            (pts,) = [c for c in ax.collections if c.get_gid() == f"folds:{name}"]
            assert len(pts.get_offsets()) == 3
        xs = np.concatenate([np.asarray(c.get_offsets())[:, 0] for c in ax.collections]
                            + [line.get_xdata() for line in ax.lines])
        pad = 0.08 * (xs.max() - xs.min()) if xs.max() > xs.min() else 0.01
        np.testing.assert_allclose(ax.get_xlim(), (xs.min() - pad, xs.max() + pad))  # zoomed on the data, not 0-1
        assert "corrected resampled t" in ax.get_xlabel()


def test_learner_names_as_typed(csv_file, tmp_path, capsys):
    out_csv = tmp_path / "res.csv"
    assert main(["evaluate", "--data", str(csv_file), "--target", "label", "--learners", "cl-multinet,structural-tm",
                 "--folds", "2", "--output", str(out_csv), "--no-progress"]) == 0
    assert list(dict.fromkeys(pd.read_csv(out_csv)["learner"])) == ["CLMN", "structuraltm"]
    assert "TM solver" not in capsys.readouterr().out  # structural-tm is a learner, not the '-tm' suffix


def test_evaluate_tm_suffix_errors(csv_file, capsys):
    assert main(["evaluate", "--data", str(csv_file), "--target", "label", "--learners", "structuraltm-tm"]) == 2
    assert "takes no parameter estimator" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(csv_file), "--target", "label", "--learners", "foo-tm"]) == 2
    assert "unknown learner(s) ['foo-tm']" in capsys.readouterr().err


def test_tm_options_default_to_the_library(csv_file, tmp_path, capsys):
    from pgmpy_ext.parameters import TMEstimator, uses_evidence

    base = ["evaluate", "--data", str(csv_file), "--target", "label", "--learners", "nb-tm", "--folds", "2",
            "--bins", "3", "--no-progress"]
    assert main(base) == 0
    default = TMEstimator()
    assert uses_evidence(default.prior_strength, default.solver)  # the library's default: the evidence rule
    assert f"; TM solver {default.solver}, prior strength by the evidence rule" in capsys.readouterr().out
    assert main([*base, "--tm-prior-strength", "30"]) == 0
    assert "; TM solver lbfgs, prior strength 30" in capsys.readouterr().out
    assert main([*base, "--tm-prior-strength", "0"]) == 0
    assert "; TM solver lbfgs, prior strength 0" in capsys.readouterr().out
    assert main([*base, "--tm-solver", "tm"]) == 0  # "auto": no prior for the thesis's iteration
    assert "; TM solver tm, prior strength 0" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([*base, "--tm-prior-strength", "-1"])
    assert "expected 'auto', 'evidence' or a number >= 0, got '-1'" in capsys.readouterr().err
