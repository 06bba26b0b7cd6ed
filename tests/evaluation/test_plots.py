"""Plots return matplotlib Figures with the expected artists (no image comparison); nothing calls pyplot.show."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from pgmpy_ext.evaluation import (  # noqa: E402
    friedman_test,
    plot_accuracy_comparison,
    plot_critical_difference,
    plot_sbn_monitor,
)


def _lines(fig, gid):
    return [line for line in fig.axes[0].lines if line.get_gid() == gid]


def _learner_texts(fig):
    return {t.get_gid()[len("learner:"):]: t.get_text() for t in fig.axes[0].texts
            if (t.get_gid() or "").startswith("learner:")}


def test_cd_diagram_artists_and_cliques():
    ranks = {"A": 1.0, "B": 1.5, "C": 3.5, "D": 4.0}
    fig = plot_critical_difference(ranks, critical_difference=1.0)
    assert isinstance(fig, Figure)
    assert _learner_texts(fig) == {"A": "A (1.00)", "B": "B (1.50)", "C": "C (3.50)", "D": "D (4.00)"}
    (cd,) = _lines(fig, "cd")
    assert cd.get_xdata()[1] - cd.get_xdata()[0] == pytest.approx(1.0)
    cliques = _lines(fig, "clique")
    assert len(cliques) == 2  # {A, B} and {C, D}; B and C differ by 2 > CD
    spans = sorted((round(min(c.get_xdata()), 2), round(max(c.get_xdata()), 2)) for c in cliques)
    assert spans == [(0.97, 1.53), (3.47, 4.03)]
    assert len(_lines(plot_critical_difference(ranks, critical_difference=3.5), "clique")) == 1
    assert _lines(plot_critical_difference(ranks, critical_difference=0.4), "clique") == []
    # the best half is labelled on the left of the axis, the rest on the right
    texts = {t.get_gid(): t for t in fig.axes[0].texts if (t.get_gid() or "").startswith("learner:")}
    assert texts["learner:A"].get_ha() == "right"
    assert texts["learner:D"].get_ha() == "left"


def test_cd_diagram_from_a_friedman_result_and_given_axes():
    scores = pd.DataFrame(np.random.default_rng(0).random((10, 4)), columns=["NB", "TAN", "SBN", "kDB"])
    res = friedman_test(scores)
    fig = plot_critical_difference(res, title="ranks")
    (cd,) = _lines(fig, "cd")
    assert cd.get_xdata()[1] - cd.get_xdata()[0] == pytest.approx(res.critical_difference)
    assert fig.axes[0].get_title() == "ranks"
    outer = Figure()
    ax = outer.add_subplot()
    assert plot_critical_difference(res, ax=ax) is outer
    fig2 = plot_critical_difference(res.average_ranks, n_datasets=10, alpha=0.10)
    (cd2,) = _lines(fig2, "cd")
    assert cd2.get_xdata()[1] - cd2.get_xdata()[0] == pytest.approx(2.291 * np.sqrt(20 / 60))
    with pytest.raises(ValueError, match="give critical_difference, or n_datasets"):
        plot_critical_difference({"a": 1.0, "b": 2.0})
    with pytest.raises(ValueError, match="at least 2 learners"):
        plot_critical_difference({"a": 1.0}, critical_difference=1.0)
    with pytest.raises(TypeError, match="ranks must be a FriedmanResult"):
        plot_critical_difference([1.0, 2.0], critical_difference=1.0)


@pytest.fixture
def long_results():
    rows = []
    for ds, (ma, mb) in {"iris": (0.9, 0.95), "vote": (0.92, 0.9), "corral": (0.85, 0.99)}.items():
        for f in range(4):
            rows.append({"dataset": ds, "learner": "NB", "fold": f, "accuracy": ma + 0.01 * (f - 1.5)})
            rows.append({"dataset": ds, "learner": "TAN", "fold": f, "accuracy": mb - 0.02 * (f - 1.5)})
    return pd.DataFrame(rows)


def test_accuracy_scatter_from_fold_results(long_results):
    fig = plot_accuracy_comparison(long_results, ["NB", "TAN"])
    ax = fig.axes[0]
    offsets = ax.collections[-1].get_offsets()
    np.testing.assert_allclose(np.asarray(offsets), [[0.9, 0.95], [0.92, 0.9], [0.85, 0.99]])
    (diag,) = _lines(fig, "diagonal")
    np.testing.assert_allclose(diag.get_xdata(), diag.get_ydata())
    assert [t.get_text() for t in ax.texts if t.get_gid() == "wins"] == ["TAN better: 2\nNB better: 1"]
    assert sorted(t.get_text() for t in ax.texts if t.get_gid() != "wins") == ["corral", "iris", "vote"]
    assert ax.get_xlabel() == "NB accuracy"
    assert ax.get_ylabel() == "TAN accuracy"
    # the error bars are the population std over folds: NB on iris varies by +-0.015, +-0.005
    (bars,) = ax.containers
    xerr_segments = bars.lines[2][0].get_segments()
    std = np.sqrt((0.015**2 + 0.005**2) / 2)
    np.testing.assert_allclose(xerr_segments[0], [[0.9 - std, 0.95], [0.9 + std, 0.95]])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


def test_accuracy_bars_and_errors(long_results):
    fig = plot_accuracy_comparison(long_results, kind="bar")
    ax = fig.axes[0]
    bars = [p for p in ax.patches if (p.get_gid() or "").startswith("learner:")]
    assert len(bars) == 6
    assert {p.get_gid() for p in bars} == {"learner:NB", "learner:TAN"}
    heights = sorted(round(p.get_height(), 6) for p in bars)
    assert heights == sorted([0.9, 0.95, 0.92, 0.9, 0.85, 0.99])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["iris", "vote", "corral"]
    wide = pd.DataFrame({"A": [0.8, 0.7], "B": [0.6, 0.9], "C": [0.5, 0.5]}, index=["d1", "d2"])
    with pytest.raises(ValueError, match="compares exactly 2 learners, got 3"):
        plot_accuracy_comparison(wide)
    with pytest.raises(ValueError, match=r"learners \['Z'\] are not in the data"):
        plot_accuracy_comparison(wide, ["A", "Z"])
    with pytest.raises(ValueError, match="kind == 'pie'"):
        plot_accuracy_comparison(wide, kind="pie")
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        plot_accuracy_comparison(wide.to_numpy())
    ax2 = Figure().add_subplot()
    assert isinstance(ax2, Axes)
    assert plot_accuracy_comparison(wide, ["A", "C"], ax=ax2) is ax2.figure


def test_sbn_monitor_from_a_fitted_classifier():
    from pgmpy_ext.classifiers import SBNClassifier
    from pgmpy_ext.datasets import make_corral

    X, y = make_corral()
    clf = SBNClassifier().fit(X, y)
    fig = plot_sbn_monitor(clf)
    ax = fig.axes[0]
    trace = clf.monitor_trace_
    bars = [p for p in ax.patches if p.get_gid() == "k_e"]
    assert len(bars) == len(trace) == 5
    np.testing.assert_allclose([b.get_height() for b in bars], trace["k_bits"])
    (K,) = _lines(fig, "K_e")
    np.testing.assert_allclose(K.get_ydata(), trace["K_bits"])
    (stop,) = _lines(fig, "stop")
    assert stop.get_xdata()[0] == pytest.approx(3.5)  # 3 accepted edges
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "A0–A1"
    # the records in structure_.trace["monitor"] give the same curve
    fig2 = plot_sbn_monitor(clf.structure_.trace["monitor"])
    np.testing.assert_allclose(_lines(fig2, "K_e")[0].get_ydata(), trace["K_bits"])


def test_sbn_monitor_aliases_and_errors():
    records = [{"edge": ("a", "b"), "k_e": -4.0}, {"edge": ("b", "c"), "k_e": 1.5}, {"edge": ("c", "d"), "k_e": 3.0}]
    fig = plot_sbn_monitor(records)
    np.testing.assert_allclose(_lines(fig, "K_e")[0].get_ydata(), [-4.0, -2.5, 0.5])  # running sum when no K
    assert _lines(fig, "stop") == []  # no 'accepted' column
    frame = pd.DataFrame({"k": [-2.0, 1.0], "K": [-2.0, -1.0], "accepted": [True, False]})
    np.testing.assert_allclose(_lines(plot_sbn_monitor(frame), "K_e")[0].get_ydata(), [-2.0, -1.0])
    with pytest.raises(ValueError, match="needs a per-edge column named one of"):
        plot_sbn_monitor([{"edge": ("a", "b"), "cmi_bits": 0.2}])
    with pytest.raises(TypeError, match="the monitor trace must be"):
        plot_sbn_monitor(42)
    with pytest.raises(ValueError, match="has no 'monitor' entry"):
        plot_sbn_monitor({"cmi": None})


# ---------------------------------------------------------------------------------------------- issue 18
def _fold_table():
    rows = []
    for learner, base in (("NB", 0.90), ("TAN", 0.94), ("SBN", 0.93)):
        for f in range(5):
            rows.append({"learner": learner, "repeat": 0, "fold": f, "n_train": 80, "n_test": 20,
                         "accuracy": base + 0.01 * ((f * 7) % 5 - 2)})
    return pd.DataFrame(rows)


def _gid(ax, gid, kind="lines"):
    return [a for a in getattr(ax, kind) if a.get_gid() == gid]


def test_fold_accuracies_points_mean_interval_and_zoom():
    from scipy import stats

    from pgmpy_ext.evaluation import plot_fold_accuracies

    res = _fold_table()
    ax = plot_fold_accuracies(res, dataset="toy")
    assert isinstance(ax, Axes)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["NB", "TAN", "SBN"]  # order of first appearance
    assert ax.get_title() == "toy: accuracy per fold"
    for row, name in enumerate(["NB", "TAN", "SBN"]):
        vals = res.loc[res["learner"] == name, "accuracy"].to_numpy()
        (pts,) = _gid(ax, f"folds:{name}", "collections")
        off = np.asarray(pts.get_offsets())
        np.testing.assert_allclose(off[:, 0], vals)  # one point per fold, at its accuracy
        assert np.all(np.abs(off[:, 1] - row) <= 0.22)  # jittered inside the learner's row
        (mean,) = _gid(ax, f"mean:{name}")
        assert mean.get_xdata()[0] == pytest.approx(vals.mean())
        (ci,) = _gid(ax, f"ci:{name}")
        half = stats.t.ppf(0.975, 4) * np.sqrt((1 / 5 + 20 / 80) * vals.var(ddof=1))  # Nadeau & Bengio
        np.testing.assert_allclose(ci.get_xdata(), [vals.mean() - half, vals.mean() + half], rtol=1e-12)
    lo, hi = ax.get_xlim()
    ends = np.concatenate([line.get_xdata() for line in ax.lines if (line.get_gid() or "").startswith("ci:")])
    assert lo < min(res["accuracy"].min(), ends.min())
    assert hi > max(res["accuracy"].max(), ends.max())
    assert lo > 0.8
    assert hi < 1.0
    assert "corrected resampled t" in ax.get_xlabel()
    assert [t.get_text() for t in ax.texts if t.get_gid() == "mean-label:TAN"] == ["94.00%"]
    # deterministic: the same jitter every time
    again = plot_fold_accuracies(res)
    np.testing.assert_array_equal(_gid(again, "folds:NB", "collections")[0].get_offsets(),
                                  _gid(ax, "folds:NB", "collections")[0].get_offsets())
    # Student t over the folds is narrower; learners= chooses and orders
    t_ax = plot_fold_accuracies(res, ["SBN", "NB"], interval="t", confidence=0.9)
    assert [t.get_text() for t in t_ax.get_yticklabels()] == ["SBN", "NB"]
    vals = res.loc[res["learner"] == "NB", "accuracy"].to_numpy()
    half = stats.t.ppf(0.95, 4) * vals.std(ddof=1) / np.sqrt(5)
    np.testing.assert_allclose(_gid(t_ax, "ci:NB")[0].get_xdata(), [vals.mean() - half, vals.mean() + half])
    assert "Student t" in t_ax.get_xlabel()
    outer = Figure().add_subplot()
    assert plot_fold_accuracies(res, ax=outer) is outer


def test_fold_accuracies_datasets_loo_and_errors():
    from pgmpy_ext.evaluation import plot_fold_accuracies

    res = _fold_table()
    both = pd.concat([res.assign(dataset="a"), res.assign(dataset="b", accuracy=res["accuracy"] - 0.1)])
    ax = plot_fold_accuracies(both, dataset="b")
    np.testing.assert_allclose(_gid(ax, "mean:NB")[0].get_xdata(), [0.80])
    assert ax.get_title() == "b: accuracy per fold"
    loo = pd.DataFrame({"learner": ["A"] * 6 + ["B"] * 6, "fold": list(range(6)) * 2, "n_train": 5, "n_test": 1,
                        "accuracy": [1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]})
    ax = plot_fold_accuracies(loo)
    assert len(ax.collections) == 0  # leave-one-out: the 0/1 folds are not drawn, only means and intervals
    assert len(_gid(ax, "ci:A")) == 1
    one = plot_fold_accuracies(res[res["fold"] == 0])  # a single fold: points and means, no interval
    assert [line for line in one.lines if (line.get_gid() or "").startswith("ci:")] == []
    with pytest.raises(ValueError, match="results has 2 data sets"):
        plot_fold_accuracies(both)
    with pytest.raises(ValueError, match=r"dataset 'c' is not in results\['dataset'\]"):
        plot_fold_accuracies(both, dataset="c")
    with pytest.raises(ValueError, match=r"learners \['KDB'\] are not in the results"):
        plot_fold_accuracies(res, ["NB", "KDB"])
    with pytest.raises(ValueError, match="interval == 'wald'"):
        plot_fold_accuracies(res, interval="wald")
    with pytest.raises(ValueError, match="interval='corrected' needs the n_train and n_test"):
        plot_fold_accuracies(res.drop(columns=["n_train"]), interval="corrected")
    with pytest.raises(ValueError, match="confidence == 1.5"):
        plot_fold_accuracies(res, confidence=1.5)
    with pytest.raises(ValueError, match="results lacks column 'accuracy'"):
        plot_fold_accuracies(res.drop(columns=["accuracy"]))
    with pytest.raises(TypeError, match="results must be a pandas DataFrame"):
        plot_fold_accuracies(res.to_numpy())


def test_ranks_over_datasets_from_the_tidy_table(long_results):
    from pgmpy_ext.evaluation import mean_scores_by_dataset, plot_ranks_over_datasets

    wide = mean_scores_by_dataset(long_results)
    assert list(wide.index) == ["iris", "vote", "corral"]
    np.testing.assert_allclose(wide.to_numpy(), [[0.9, 0.95], [0.92, 0.9], [0.85, 0.99]])
    ax = plot_ranks_over_datasets(long_results)
    assert isinstance(ax, Axes)
    fr = friedman_test(wide)
    texts = {t.get_gid(): t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("learner:")}
    assert texts == {"learner:NB": f"NB ({fr.average_ranks['NB']:.2f})", "learner:TAN": "TAN (1.33)"}
    (cd,) = _gid(ax, "cd")
    assert cd.get_xdata()[1] - cd.get_xdata()[0] == pytest.approx(fr.critical_difference)
    assert ax.get_title() == f"average accuracy ranks over 3 data sets (Friedman p = {fr.pvalue:.3g})"
    with pytest.raises(ValueError, match="needs at least 2 data sets, got 1"):
        plot_ranks_over_datasets(long_results[long_results["dataset"] == "iris"])
    with pytest.raises(ValueError, match=r"data sets \['vote'\] lack a 'accuracy' for some learner"):
        plot_ranks_over_datasets(long_results[~((long_results["dataset"] == "vote")
                                                & (long_results["learner"] == "TAN"))])
    with pytest.raises(ValueError, match="results lacks column 'dataset'"):
        plot_ranks_over_datasets(long_results.drop(columns=["dataset"]))


@pytest.fixture(scope="module")
def cem_data():
    rng = np.random.default_rng(3)
    n = 300
    z = rng.integers(0, 3, n)
    X = pd.DataFrame({f"x{j}": np.where(rng.random(n) < 0.75, z, rng.integers(0, 3, n)) for j in range(4)})
    X["x4"] = np.where(rng.random(n) < 0.9, X["x3"] % 2, 1 - X["x3"] % 2)  # an augmenting arc to marginalise
    return X


def _ve_profiles(model, cluster, features):
    from pgmpy.inference import VariableElimination

    ve = VariableElimination(model)
    cstates = model.get_cpds(cluster).state_names[cluster]
    out = []
    for f in features:
        states = model.get_cpds(f).state_names[f]
        for s in states:
            out.append([ve.query([f], evidence={cluster: k}, show_progress=False).get_value(**{f: s})
                        for k in cstates])
    return np.asarray(out)


def test_cluster_profiles_of_cem_tan_equal_variable_elimination(cem_data):
    from pgmpy_ext.clustering import CEMClustering
    from pgmpy_ext.evaluation import cluster_profiles, plot_cluster_profiles

    cem = CEMClustering(3, model="tan", n_init=2, n_stochastic_steps=10, alpha=1.0, random_state=0).fit(cem_data)
    aug = [e for e in cem.model_.edges() if e[0] != cem.cluster_node_]
    assert aug  # the TAN has augmenting arcs, so P(X_i | cluster) needs a sum over the attribute parent
    feats = list(cem_data.columns)
    expected = _ve_profiles(cem.model_, cem.cluster_node_, feats)
    np.testing.assert_allclose(cluster_profiles(cem).to_numpy(), expected, rtol=0, atol=1e-9)
    ax = plot_cluster_profiles(cem)
    (im,) = [i for i in ax.images if i.get_gid() == "profiles"]
    np.testing.assert_allclose(np.asarray(im.get_array()), expected, rtol=0, atol=1e-9)
    assert im.get_clim() == (0.0, 1.0)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:3] == ["x0 = 0", "x0 = 1", "x0 = 2"]
    assert labels[-2:] == ["x4 = 0", "x4 = 1"]
    assert len(labels) == 14
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"{k}\n({100 * w:.0f}%)" for k, w in
                                                             enumerate(cem.weights_)]
    values = [t for t in ax.texts if t.get_gid() == "value"]
    assert len(values) == 14 * 3  # small grid: every cell annotated
    assert values[0].get_text() == f"{expected[0, 0]:.2f}"
    assert len(_gid(ax, "feature-separator")) == 4
    assert len(ax.figure.axes) == 2  # the colour bar
    assert [t for t in plot_cluster_profiles(cem, annotate=False).texts if t.get_gid() == "value"] == []
    sub = plot_cluster_profiles(cem, features=["x4", "x1"])
    assert [t.get_text() for t in sub.get_yticklabels()] == ["x4 = 0", "x4 = 1", "x1 = 0", "x1 = 1", "x1 = 2"]
    # deterministic
    np.testing.assert_array_equal(np.asarray(plot_cluster_profiles(cem).images[0].get_array()),
                                  np.asarray(im.get_array()))


def test_cluster_profiles_of_a_cl_multinet_and_of_any_network(cem_data):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

    from pgmpy_ext.clustering import CEMClustering
    from pgmpy_ext.evaluation import cluster_profiles, plot_cluster_profiles

    cem = CEMClustering(2, model="cl", n_init=2, n_stochastic_steps=10, alpha=1.0, random_state=0).fit(cem_data)
    table = cluster_profiles(cem)
    for k, model in cem.models_.items():
        ve = VariableElimination(model)
        for f in cem_data.columns:
            q = ve.query([f], show_progress=False)
            got = table.loc[f][k]
            np.testing.assert_allclose(got.to_numpy(), [q.get_value(**{f: s}) for s in got.index], atol=1e-9)
    assert plot_cluster_profiles(cem).images[0].get_array().shape == (14, 2)
    # a network with two attribute parents (VariableElimination path), checked against brute-force enumeration
    net = DiscreteBayesianNetwork([("Z", "A"), ("Z", "B"), ("A", "C"), ("B", "C")])
    net.add_cpds(TabularCPD("Z", 2, [[0.3], [0.7]]),
                 TabularCPD("A", 2, [[0.9, 0.2], [0.1, 0.8]], evidence=["Z"], evidence_card=[2]),
                 TabularCPD("B", 2, [[0.6, 0.3], [0.4, 0.7]], evidence=["Z"], evidence_card=[2]),
                 TabularCPD("C", 2, [[0.99, 0.5, 0.4, 0.05], [0.01, 0.5, 0.6, 0.95]], evidence=["A", "B"],
                            evidence_card=[2, 2]))
    net.latents = {"Z"}
    pa = np.array([[0.9, 0.2], [0.1, 0.8]])  # P(A | Z), columns Z
    pb = np.array([[0.6, 0.3], [0.4, 0.7]])
    pc = np.array([[0.99, 0.5, 0.4, 0.05], [0.01, 0.5, 0.6, 0.95]]).reshape(2, 2, 2)  # (C, A, B)
    c_given_z = np.einsum("cab,az,bz->cz", pc, pa, pb)
    got = cluster_profiles(net)  # the only latent node is the cluster
    np.testing.assert_allclose(got.loc["C"].to_numpy(), c_given_z, atol=1e-12)
    np.testing.assert_allclose(got.loc["A"].to_numpy(), pa, atol=1e-12)
    net.latents = set()
    with pytest.raises(ValueError, match="the network has 0 latent nodes"):
        cluster_profiles(net)
    with pytest.raises(ValueError, match="cluster_node 'W' is not a node"):
        cluster_profiles(net, cluster_node="W")
    with pytest.raises(ValueError, match=r"features \['Z'\] are not attributes"):
        cluster_profiles(net, cluster_node="Z", features=["Z"])
    with pytest.raises(TypeError, match="must be a fitted clusterer"):
        plot_cluster_profiles(CEMClustering(2))


def test_membership_bars_groups_and_order():
    from pgmpy_ext.evaluation import plot_membership

    q = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8], [0.95, 0.05, 0.0],
                  [0.3, 0.6, 0.1]])
    groups = ["b", "a", "a", "b", "b", "a"]
    ax = plot_membership(q, groups, title="Q")
    assert isinstance(ax, Axes)
    bars = {k: [p for p in ax.patches if p.get_gid() == f"cluster:{k}"] for k in range(3)}
    assert [len(b) for b in bars.values()] == [6, 6, 6]
    # group a (rows 1, 2, 5) then b (rows 0, 3, 4); a's strongest cluster is 1: rows 1 (0.7), 5 (0.6) have it
    # dominant, then row 2 (dominant 0); b's strongest is 0: rows 4 (0.95), 0 (0.9), then row 3 (dominant 2)
    order = [1, 5, 2, 4, 0, 3]
    np.testing.assert_allclose([p.get_height() for p in bars[0]], q[order, 0])
    np.testing.assert_allclose([p.get_y() for p in bars[2]], q[order, 0] + q[order, 1])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    (sep,) = _gid(ax, "group-separator")
    assert sep.get_xdata()[0] == pytest.approx(2.5)
    assert ax.get_ylim() == (0.0, 1.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cluster 0", "cluster 1", "cluster 2"]
    kept = plot_membership(q, groups, group_order=["b", "a"], sort=False, cluster_labels=["x", "y", "z"])
    np.testing.assert_allclose([p.get_height() for p in kept.patches if p.get_gid() == "cluster:0"],
                               q[[0, 3, 4, 1, 2, 5], 0])
    assert [t.get_text() for t in kept.get_legend().get_texts()] == ["x", "y", "z"]
    plain = plot_membership(q)
    assert plain.get_xticks().size == 0
    assert _gid(plain, "group-separator") == []
    assert "sorted by dominant cluster" in plain.get_xlabel()
    # deterministic
    np.testing.assert_array_equal([p.get_height() for p in plot_membership(q, groups).patches],
                                  [p.get_height() for p in ax.patches])


@pytest.mark.parametrize(("proba", "kwargs", "message"), [
    (np.ones(3), {}, "proba must be a non-empty 2-D array"),
    (np.array([[0.5, 0.6]]), {}, "row 0 of proba sums to 1.1, expected 1"),
    (np.array([[1.5, -0.5]]), {}, "proba has a negative"),
    (np.array([[0.5, 0.5]]), {"groups": ["a", "b"]}, r"groups has shape \(2,\), expected \(1,\)"),
    (np.array([[0.5, 0.5]]), {"groups": ["a"], "group_order": ["b"]}, r"group_order lacks groups \['a'\]"),
    (np.array([[0.5, 0.5]]), {"cluster_labels": ["x"]}, "cluster_labels has 1 names for K = 2"),
    (np.array([[0.5, 0.5]]), {"colors": ["red"]}, "colors has 1 entries for K = 2"),
], ids=["1d", "sum", "negative", "groups", "order", "labels", "colors"])
def test_membership_errors(proba, kwargs, message):
    from pgmpy_ext.evaluation import plot_membership

    with pytest.raises(ValueError, match=message):
        plot_membership(proba, **kwargs)
