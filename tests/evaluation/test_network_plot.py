"""plot_network draws what the network holds (checked through the artists' gids, texts and positions, not pixels)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402

from pgmpy_ext.classifiers import (  # noqa: E402
    CLMultinetClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    SBNClassifier,
    TANClassifier,
)
from pgmpy_ext.clustering import CEMClustering  # noqa: E402
from pgmpy_ext.evaluation import plot_network  # noqa: E402


@pytest.fixture(scope="module")
def data():
    """Class C; A and D follow C, B copies A, E copies B (a chain below A), F is noise."""
    rng = np.random.default_rng(0)
    n = 400
    c = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, c, 1 - c)
    b = np.where(rng.random(n) < 0.9, a, 1 - a)
    e = np.where(rng.random(n) < 0.9, b, 1 - b)
    d = np.where(rng.random(n) < 0.7, c, 1 - c)
    f = rng.integers(0, 3, n)
    X = pd.DataFrame({"A": a, "B": b, "D": d, "E": e, "F": f})
    return X, pd.Series(c, name="C")


def _nodes(ax):
    """{name: role} of the node patches."""
    out = {}
    for p in ax.patches:
        gid = p.get_gid() or ""
        if gid.startswith("node:"):
            _, role, name = gid.split(":", 2)
            out[name] = role
    return out


def _arcs(ax):
    """{(u, v): kind} of the arrows."""
    out = {}
    for p in ax.patches:
        gid = p.get_gid() or ""
        if gid.startswith("arc:"):
            _, kind, arc = gid.split(":", 2)
            u, v = arc.split("->")
            out[(u, v)] = kind
    return out


def _positions(ax):
    return {t.get_gid()[len("label:"):]: tuple(t.get_position()) for t in ax.texts
            if (t.get_gid() or "").startswith("label:")}


def _weights(ax):
    return {t.get_gid()[len("weight:"):]: t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("weight:")}


def test_naive_bayes_class_on_top_and_class_arcs_only(data):
    X, y = data
    ax = plot_network(NaiveBayesClassifier().fit(X, y), title="NB")
    assert _nodes(ax) == {"C": "class", "A": "feature", "B": "feature", "D": "feature", "E": "feature",
                          "F": "feature"}
    assert _arcs(ax) == {("C", f): "class" for f in X.columns}
    pos = _positions(ax)
    assert all(pos["C"][1] > pos[f][1] for f in X.columns)
    assert ax.get_title() == "NB"
    assert _weights(ax) == {}


def test_tan_augmenting_arcs_labelled_with_cmi(data):
    X, y = data
    clf = TANClassifier().fit(X, y)
    ax = plot_network(clf)
    aug = {arc for arc, kind in _arcs(ax).items() if kind == "augmenting"}
    assert aug == set(clf.structure_.augmenting_edges())
    assert len(aug) == X.shape[1] - 1
    cmi = clf.structure_.trace["cmi"]
    idx = {f: i for i, f in enumerate(clf.structure_.features)}
    assert _weights(ax) == {f"{u}->{v}": f"{cmi[idx[u], idx[v]]:.3f}" for u, v in aug}
    # the strongest arc is drawn widest; class arcs are thinner than every augmenting arc
    widths = {(p.get_gid()): p.get_linewidth() for p in ax.patches if (p.get_gid() or "").startswith("arc:")}
    strongest = max(aug, key=lambda e: cmi[idx[e[0]], idx[e[1]]])
    assert widths[f"arc:augmenting:{strongest[0]}->{strongest[1]}"] == max(widths.values())
    assert max(w for g, w in widths.items() if g.startswith("arc:class")) < min(
        w for g, w in widths.items() if g.startswith("arc:augmenting"))
    # tree layout: each feature one row below its augmenting parent, the class above them all
    pos = _positions(ax)
    for u, v in aug:
        assert pos[v][1] < pos[u][1]
    assert pos["C"][1] == max(p[1] for p in pos.values())
    assert any(t.get_gid() == "caption" and "I(Xi; Xj | C)" in t.get_text() for t in ax.texts)
    # a format string and user weights
    ax2 = plot_network(clf, edge_labels="{:.1f}", weights={aug_pair[::-1]: 2.0 for aug_pair in sorted(aug)[:1]})
    labels = _weights(ax2)
    (first,) = sorted(aug)[:1]
    assert labels[f"{first[0]}->{first[1]}"] == "2.0"


def test_sbn_and_kdb2(data):
    X, y = data
    sbn = SBNClassifier().fit(X, y)
    arcs = _arcs(plot_network(sbn))
    assert {a for a, k in arcs.items() if k == "augmenting"} == set(sbn.structure_.augmenting_edges())
    kdb = KDBClassifier(k=2).fit(X, y)
    ax = plot_network(kdb)
    arcs = _arcs(ax)
    assert set(arcs) == set(kdb.model_.edges())
    assert any(sum(1 for (u, v), k in arcs.items() if v == f and k == "augmenting") == 2 for f in X.columns)
    pos = _positions(ax)
    for (u, v), kind in arcs.items():  # layered by topological depth
        assert pos[v][1] < pos[u][1]
    assert _weights(ax) == {}  # a layered network shows weights as widths only, unless asked
    assert len(_weights(plot_network(kdb, edge_labels=True))) == sum(k == "augmenting" for k in arcs.values())


def test_cl_multinet_one_panel_per_class(data):
    X, y = data
    clf = CLMultinetClassifier().fit(X, y)
    axes = plot_network(clf, title="multinet")
    assert isinstance(axes, np.ndarray)
    assert axes.shape == (2,)
    assert [a.get_title() for a in axes] == ["C = 0", "C = 1"]
    for a, (label, model) in zip(axes, clf.models_.items()):
        assert set(_arcs(a)) == set(model.edges())
        assert "class" not in _nodes(a).values()
        assert len(_weights(a)) == len(model.edges())
    assert axes[0].figure is axes[1].figure
    with pytest.raises(ValueError, match="drawn as 2 panels"):
        plot_network(clf, ax=axes[0])


def test_cem_tan_cluster_drawn_as_latent(data):
    X, _ = data
    cem = CEMClustering(2, model="tan", n_init=2, n_stochastic_steps=5, random_state=0).fit(X)
    ax = plot_network(cem)
    nodes = _nodes(ax)
    assert nodes["cluster"] == "class"
    patch = next(p for p in ax.patches if p.get_gid() == "node:class:cluster")
    assert patch.get_linestyle() == "--"
    # the plain network: the latent root is found and highlighted
    assert _nodes(plot_network(cem.model_))["cluster"] == "class"


def _random_dag(n, seed):
    rng = np.random.default_rng(seed)
    g = nx.DiGraph()
    names = [f"X{i}" for i in range(n)]
    g.add_nodes_from(names)
    for j in range(1, n):
        for i in rng.choice(j, size=min(j, int(rng.integers(0, 3))), replace=False):
            g.add_edge(names[int(i)], names[j])
    return g


def test_fifty_node_dag_inside_axes_without_overlaps():
    g = _random_dag(50, 1)
    ax = plot_network(g)
    fig = ax.figure
    FigureCanvasAgg(fig).draw()
    boxes = {p.get_gid(): p.get_window_extent() for p in ax.patches if (p.get_gid() or "").startswith("node:")}
    assert len(boxes) == 50
    frame = ax.get_window_extent()
    for b in boxes.values():
        assert frame.x0 - 1 <= b.x0
        assert b.x1 <= frame.x1 + 1
        assert frame.y0 - 1 <= b.y0
        assert b.y1 <= frame.y1 + 1
    items = list(boxes.values())
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            a, b = items[i], items[j]
            assert not (a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)  # no two boxes overlap
    assert len(set(_positions(ax).values())) == 50
    assert len(_arcs(ax)) == g.number_of_edges()


def test_deterministic_and_given_axes(data):
    X, y = data
    clf = TANClassifier().fit(X, y)
    assert _positions(plot_network(clf)) == _positions(plot_network(clf))
    g = _random_dag(40, 3)
    assert _positions(plot_network(g)) == _positions(plot_network(g.copy()))
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    assert plot_network(g, ax=ax, title="small") is ax
    assert ax.get_title() == "small"
    sizes = [t.get_fontsize() for t in ax.texts if (t.get_gid() or "").startswith("label:")]
    assert max(sizes) < 8.0  # scaled down to fit the small axes


def test_bad_input():
    g = nx.DiGraph([("a", "b"), ("c", "b")])
    with pytest.raises(TypeError, match="plot_network draws a pgmpy"):
        plot_network([("a", "b")])
    with pytest.raises(NotFittedError, match="not fitted yet"):
        plot_network(TANClassifier())
    with pytest.raises(ValueError, match="layout == 'circle'"):
        plot_network(g, layout="circle")
    with pytest.raises(ValueError, match="class_node 'z' is not a node"):
        plot_network(g, class_node="z")
    with pytest.raises(ValueError, match="not arcs of the network"):
        plot_network(g, weights={("a", "c"): 1.0})
    with pytest.raises(TypeError, match="weights must be a dict"):
        plot_network(g, weights=[1.0])
    with pytest.raises(ValueError, match="layout='tree' needs a forest"):
        plot_network(g, layout="tree")
    with pytest.raises(ValueError, match="not a format string"):
        plot_network(g, edge_labels="3f")
    with pytest.raises(ValueError, match="no nodes"):
        plot_network(nx.DiGraph())
