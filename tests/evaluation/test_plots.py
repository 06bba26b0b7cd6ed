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
