"""The picture gallery (``make gallery`` / ``pgmpy-ext gallery``): every plot of :mod:`pgmpy_ext.evaluation` drawn
on built-in data, saved as PNG, and listed with its code in a Markdown page (``docs/gallery.md``).

Everything runs offline on the package's own generators (Corral, MONK, m-of-n, tic-tac-toe), deterministically.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["FIGURES", "make_gallery"]


def _corral():
    from pgmpy_ext.datasets import make_corral

    return make_corral()


def _tan_corral(ax):
    from pgmpy_ext.classifiers import TANClassifier
    from pgmpy_ext.evaluation import plot_network

    X, y = _corral()
    return plot_network(TANClassifier().fit(X, y), ax=ax, title="TAN on Corral (arcs labelled with I(Xi; Xj | C))")


def _sbn_corral(ax):
    from pgmpy_ext.classifiers import SBNClassifier
    from pgmpy_ext.evaluation import plot_network

    X, y = _corral()
    return plot_network(SBNClassifier().fit(X, y), ax=ax, title="SBN on Corral: the monitor keeps the forest small")


def _sbn_monitor(ax):
    from pgmpy_ext.classifiers import SBNClassifier
    from pgmpy_ext.evaluation import plot_sbn_monitor

    X, y = _corral()
    return plot_sbn_monitor(SBNClassifier().fit(X, y).structure_.trace, ax=ax, title="SBN monitor on Corral")


def _kdb_tictactoe(ax):
    from pgmpy_ext.classifiers import KDBClassifier
    from pgmpy_ext.datasets import make_tic_tac_toe
    from pgmpy_ext.evaluation import plot_network

    X, y = make_tic_tac_toe()
    return plot_network(KDBClassifier(k=2).fit(X, y), ax=ax, title="kDB (k = 2) on tic-tac-toe end games")


def _cl_multinet(ax):
    from pgmpy_ext.classifiers import CLMultinetClassifier
    from pgmpy_ext.datasets import make_corral
    from pgmpy_ext.evaluation import plot_network

    X, y = make_corral()
    return plot_network(CLMultinetClassifier().fit(X, y), ax=ax)  # ax=None: one panel per class


def _fold_accuracies(ax):
    from pgmpy_ext.classifiers import ABNClassifier, NaiveBayesClassifier, SBNClassifier, TANClassifier
    from pgmpy_ext.datasets import make_monks
    from pgmpy_ext.evaluation import cross_validate_learners, plot_fold_accuracies

    X, y = make_monks(2)
    learners = {"NB": NaiveBayesClassifier(), "TAN": TANClassifier(), "SBN": SBNClassifier(),
                "ABN": ABNClassifier()}
    results = cross_validate_learners(learners, X, y, cv="stratified", n_splits=10, random_state=0)
    return plot_fold_accuracies(results, ax=ax, dataset="MONK-2")


@lru_cache(maxsize=1)
def _answers_cem():
    """CEM-TAN with 3 clusters on 400 rows of six answers, each a noisy copy of one of 3 hidden groups (75% of the
    time the group, otherwise a random answer): a clustering with a known truth to recover (adjusted Rand 0.95)."""
    from pgmpy_ext.clustering import CEMClustering

    rng = np.random.default_rng(0)
    group = rng.integers(0, 3, 400)
    X = pd.DataFrame({f"q{i}": np.where(rng.random(400) < 0.75, group, rng.integers(0, 3, 400)) for i in range(6)})
    return CEMClustering(3, model="tan", n_init=3, random_state=0).fit(X), X, group


def _cem_network(ax):
    from pgmpy_ext.evaluation import plot_network

    cem, _, _ = _answers_cem()
    return plot_network(cem, ax=ax, title="CEM-TAN on six noisy answers: the latent cluster node and its tree")


def _cem_profiles(ax):
    from pgmpy_ext.evaluation import plot_cluster_profiles

    cem, _, _ = _answers_cem()
    return plot_cluster_profiles(cem, ax=ax)


def _membership(ax):
    from pgmpy_ext.evaluation import plot_membership

    cem, X, group = _answers_cem()
    return plot_membership(cem.predict_proba(X), groups=pd.Series(group).map(lambda g: f"hidden group {g}"), ax=ax)


@lru_cache(maxsize=1)
def _digits_map():
    """NaiveBayesMap (defaults, 20 epochs) on scikit-learn's bundled digits (first 900 rows, pixels / 16)."""
    import warnings

    from sklearn.datasets import load_digits

    from pgmpy_ext.maps import NaiveBayesMap

    d = load_digits()
    X = pd.DataFrame(d.data[:900] / 16, columns=[f"px{r}{c}" for r in range(8) for c in range(8)])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*constant column")
        nbm = NaiveBayesMap(n_epochs=20, random_state=0).fit(X)
    return nbm, X, d.target[:900]


def _nbm_digits_map(ax):
    from pgmpy_ext.maps import plot_map

    nbm, X, y = _digits_map()
    hard = nbm.set_params(projection="hard").transform(X)
    nbm.set_params(projection="soft")
    return plot_map(hard, y, ax=ax, grid=(10, 10), jitter=0.35,
                    title="NaiveBayesMap on digits: winner neuron per image (jittered)")


def _nbm_component_planes(ax):
    from pgmpy_ext.maps import plot_component_planes

    nbm, _, _ = _digits_map()
    return plot_component_planes(nbm, ["px22", "px25", "px33", "px36", "px43", "px53", "px54", "px63"], ncols=4,
                                 title="component planes: the mean of 8 pixels over the map")


def _nbm_neighbour_distances(ax):
    from pgmpy_ext.maps import plot_neighbour_distances

    nbm, _, _ = _digits_map()
    return plot_neighbour_distances(nbm, ax=ax, title="digits map: distance to grid neighbours (U-matrix style)")


#: name -> (caption, draw(ax) -> ax, figure size in inches)
FIGURES: dict[str, tuple[str, Callable, tuple]] = {
    "tan_corral": ("`plot_network` of a TAN: the class on top, class arcs light, augmenting arcs labelled with "
                   "their conditional mutual information.", _tan_corral, (7, 5)),
    "sbn_corral": ("`plot_network` of an SBN: the Bayesian complexity monitor keeps only the arcs worth their "
                   "code length.", _sbn_corral, (7, 5)),
    "sbn_monitor": ("`plot_sbn_monitor`: the monitor edge by edge (Ruz's thesis, chapter 3).", _sbn_monitor, (7, 4)),
    "kdb_tictactoe": ("`plot_network` of a kDB with k = 2: a general DAG in layers.", _kdb_tictactoe, (8, 5)),
    "cl_multinet": ("`plot_network` of a Chow-Liu multinet: one tree per class, one panel each.", _cl_multinet,
                    None),
    "fold_accuracies": ("`plot_fold_accuracies`: per-fold accuracies, mean and 95% interval, on an axis that "
                        "shows the differences (what `pgmpy-ext evaluate --plot` draws for one data set).",
                        _fold_accuracies, (7, 4)),
    "cem_network": ("`plot_network` of a CEM-TAN clustering of six noisy answers to three hidden groups: the "
                    "latent cluster node drawn as latent.", _cem_network, (7, 5)),
    "cem_profiles": ("`plot_cluster_profiles`: P(X_i = x | cluster) for every attribute state (the same clustering: "
                     "each cluster prefers one answer, the answer of its hidden group).", _cem_profiles, (6, 7)),
    "membership": ("`plot_membership`: the posterior of every row, grouped by a known label (STRUCTURE-style): "
                   "the same clustering recovers the hidden groups (adjusted Rand 0.95).", _membership, (8, 3)),
    "nbm_digits_map": ("`plot_map` of a `NaiveBayesMap` on digits, hard projection with `jitter`: each digit gets "
                       "its own region of the 10 x 10 map.", _nbm_digits_map, (6.5, 6)),
    "nbm_component_planes": ("`plot_component_planes`: one panel per pixel, its mean over the map (the same map).",
                             _nbm_component_planes, None),
    "nbm_neighbour_distances": ("`plot_neighbour_distances`: mean distance of each neuron to its grid neighbours; "
                                "dark ridges are the borders between digit regions.", _nbm_neighbour_distances,
                                (5, 4.2)),
}


def make_gallery(output_dir: str | Path = "docs/gallery", markdown: str | Path | None = "docs/gallery.md",
                 names=None, out=print) -> list[Path]:
    """Draw the figures of :data:`FIGURES` (or ``names``) into ``output_dir`` as PNG and write the Markdown page.

    Returns the paths of the PNG files. Uses matplotlib's Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.figure
    import matplotlib.pyplot as plt

    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    if markdown is not None:
        Path(markdown).parent.mkdir(parents=True, exist_ok=True)
    names = list(FIGURES) if names is None else list(names)
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        raise ValueError(f"unknown figure(s) {unknown!r}; known: {list(FIGURES)!r}.")
    paths, lines = [], ["# Gallery", "", "Every picture below is drawn by `make gallery` (`pgmpy-ext gallery`) from "
                        "built-in data, offline; the code of each is in `pgmpy_ext/_gallery.py`.", ""]
    for name in names:
        caption, draw, size = FIGURES[name]
        ax = None if size is None else plt.subplots(figsize=size)[1]  # None: the plot makes its own panels
        result = draw(ax)
        first = np.ravel(result)[0] if isinstance(result, np.ndarray) else result
        fig = first if isinstance(first, matplotlib.figure.Figure) else first.figure
        path = output_dir / f"{name}.png"
        fig.savefig(path, dpi=100, bbox_inches="tight")
        plt.close("all")
        paths.append(path)
        out(f"wrote {path}")
        if markdown is not None:
            rel = Path(path).resolve().relative_to(Path(markdown).resolve().parent)
            lines += [f"## {name}", "", caption, "", f"![{name}]({rel.as_posix()})", ""]
    if markdown is not None:
        Path(markdown).write_text("\n".join(lines))
        out(f"wrote {markdown}")
    return paths
