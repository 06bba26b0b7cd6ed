"""Plots of evaluation results (matplotlib): critical-difference diagram, accuracy comparison, SBN monitor curve.

Every function returns a ``matplotlib.figure.Figure`` and never calls ``pyplot.show``. Without an ``ax`` the figure
is created with ``matplotlib.figure.Figure`` directly (no pyplot, so no GUI backend and no global figure list; it
works headless, e.g. under Agg) and can be saved with ``fig.savefig(path)``. With an ``ax`` the plot is drawn
there and ``ax.figure`` is returned. matplotlib is imported only when a plot is made (it is an optional
dependency).

Artists carry ``gid`` values so that callers and tests can find them: ``"learner:<name>"`` (labels and their
lines in the CD diagram), ``"cd"`` (the critical-difference bar), ``"clique"`` (groups not significantly
different), ``"diagonal"``, ``"k_e"``, ``"K_e"``, ``"stop"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pgmpy_ext.utils import check_option

__all__ = ["plot_accuracy_comparison", "plot_critical_difference", "plot_sbn_monitor"]


def _figure_and_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover - matplotlib is installed wherever plots are tested
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from err
    fig = Figure(figsize=figsize)
    return fig, fig.add_subplot()


# ---------------------------------------------------------------------------------------------- CD diagram
def _cliques(names: list, ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs [i, j] (in rank order, j > i) whose rank range is below ``cd``: not significantly different."""
    runs = []
    k = len(names)
    for i in range(k):
        j = i
        while j + 1 < k and ranks[j + 1] - ranks[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


def plot_critical_difference(ranks, critical_difference: float | None = None, *, n_datasets: int | None = None,
                             alpha: float = 0.05, ax=None, title: str | None = None):
    """Critical-difference diagram of average ranks (Demšar 2006, Fig. 1 style).

    Learners are placed on a rank axis (1 = best, on the left) and labelled left or right; a bar of length CD is
    drawn above the axis, and thick lines below it join groups of learners whose average ranks differ by less
    than CD (no significant difference by the Nemenyi test).

    Parameters
    ----------
    ranks : FriedmanResult, pandas Series or dict
        A :func:`friedman_test` result (its ``average_ranks`` and ``critical_difference`` are used), or
        ``{learner: average rank}``.
    critical_difference : float, optional
        The CD; by default the result's, or computed from ``n_datasets`` and ``alpha``
        (:func:`nemenyi_critical_difference`).
    n_datasets : int, optional
        Number of data sets, when ``ranks`` is not a FriedmanResult and no CD is given.
    alpha : float, default 0.05
        Level of a computed CD.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_critical_difference({"NB": 2.9, "TAN": 2.1, "SBN": 1.6, "kDB": 3.4}, n_datasets=10)
    >>> sorted(t.get_text() for t in fig.axes[0].texts if t.get_gid() and t.get_gid().startswith("learner:"))
    ['NB (2.90)', 'SBN (1.60)', 'TAN (2.10)', 'kDB (3.40)']
    """
    from pgmpy_ext.evaluation._significance import FriedmanResult, nemenyi_critical_difference

    if isinstance(ranks, FriedmanResult):
        series = ranks.average_ranks
        if critical_difference is None:
            critical_difference = ranks.critical_difference
    elif isinstance(ranks, pd.Series):
        series = ranks
    elif isinstance(ranks, Mapping):
        series = pd.Series(dict(ranks), dtype=float)
    else:
        raise TypeError(f"ranks must be a FriedmanResult, a pandas Series or a dict of average ranks, got "
                        f"{type(ranks).__name__}.")
    k = len(series)
    if k < 2:
        raise ValueError(f"a critical-difference diagram needs at least 2 learners, got {k}.")
    if critical_difference is None:
        if n_datasets is None:
            raise ValueError("give critical_difference, or n_datasets (and alpha) to compute it, or pass a "
                             "FriedmanResult.")
        critical_difference = nemenyi_critical_difference(k, n_datasets, alpha)
    cd = float(critical_difference)
    order = np.argsort(series.to_numpy(dtype=float), kind="stable")
    names = [str(series.index[i]) for i in order]
    r = series.to_numpy(dtype=float)[order]
    lo, hi = 1, max(k, int(math.ceil(r.max())))
    n_left = int(math.ceil(k / 2))
    label_rows = max(n_left, k - n_left)
    fig, ax = _figure_and_axes(ax, (6.4, 1.6 + 0.32 * label_rows))
    span = hi - lo
    margin = 0.18 * span + 0.6
    ax.set_xlim(lo - margin, hi + margin)
    ax.set_ylim(-(label_rows + 1.2), 2.2)
    ax.axis("off")
    # rank axis with ticks
    ax.plot([lo, hi], [0, 0], color="black", linewidth=1.2, gid="axis")
    for t in range(lo, hi + 1):
        ax.plot([t, t], [0, 0.18], color="black", linewidth=1.0)
        ax.text(t, 0.3, str(t), ha="center", va="bottom", fontsize=9)
    # CD bar
    ax.plot([lo, lo + cd], [1.5, 1.5], color="black", linewidth=1.6, gid="cd")
    for x in (lo, lo + cd):
        ax.plot([x, x], [1.38, 1.62], color="black", linewidth=1.2)
    ax.text(lo + cd / 2, 1.7, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9, gid="cd-label")
    # learners
    for i, (name, rank) in enumerate(zip(names, r)):
        left = i < n_left
        row = (i + 1) if left else (k - i)
        y = -row * 0.9 - 0.2
        x_text = lo - margin * 0.25 if left else hi + margin * 0.25
        ax.plot([rank, rank, x_text], [0, y, y], color="black", linewidth=0.9, gid=f"learner:{name}")
        ax.text(x_text - 0.05 if left else x_text + 0.05, y, f"{name} ({rank:.2f})", ha="right" if left else "left",
                va="center", fontsize=9, gid=f"learner:{name}")
    # cliques: thick bars just below the axis
    for level, (i, j) in enumerate(_cliques(names, r, cd)):
        y = -0.25 - 0.18 * level
        ax.plot([r[i] - 0.03, r[j] + 0.03], [y, y], color="black", linewidth=3.0, solid_capstyle="round",
                gid="clique")
    if title:
        ax.set_title(title)
    return fig


# ---------------------------------------------------------------------------------------------- accuracy comparison
def _comparison_tables(data: pd.DataFrame, metric: str, dataset_col: str):
    """(means, stds) wide tables (index: data sets, columns: learners); stds is None for wide input."""
    if "learner" in data.columns and metric in data.columns:
        frame = data.copy()
        if dataset_col not in frame.columns:
            frame[dataset_col] = ""
        g = frame.groupby([dataset_col, "learner"], sort=False)[metric]
        means = g.mean().unstack("learner")
        stds = g.std(ddof=0).unstack("learner")
        learners = list(dict.fromkeys(frame["learner"]))
        datasets = list(dict.fromkeys(frame[dataset_col]))
        return means.loc[datasets, learners], stds.loc[datasets, learners]
    return data.astype(float), None


def plot_accuracy_comparison(data: pd.DataFrame, learners: Sequence[str] | None = None, *, kind: str = "scatter",
                             metric: str = "accuracy", dataset_col: str = "dataset", annotate: bool = True, ax=None,
                             title: str | None = None):
    """Compare learners data set by data set: a scatter of learner A against learner B, or grouped bars.

    Parameters
    ----------
    data : DataFrame
        Either per-fold results in long form (columns ``learner``, ``metric`` and ``dataset_col``: e.g. several
        :func:`cross_validate_learners` tables concatenated with a ``dataset`` column; without that column all
        rows are one data set), aggregated to mean ± population std per (data set, learner); or a wide table
        with one row per data set and one column per learner (no error bars).
    learners : sequence of str, optional
        The learners shown. ``kind="scatter"`` needs exactly two (A on x, B on y); the default is every learner
        (which must then be two for a scatter).
    kind : {"scatter", "bar"}, default "scatter"
        ``"scatter"``: one point per data set with the diagonal ``y = x`` (points above it favour B), error bars
        when stds are known. ``"bar"``: one group of bars per data set, error bars = std over folds.
    metric : str, default "accuracy"
    dataset_col : str, default "dataset"
    annotate : bool, default True
        Write each data set's name next to its point (scatter).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> wide = pd.DataFrame({"NB": [0.80, 0.70, 0.90], "TAN": [0.85, 0.75, 0.88]}, index=["a", "b", "c"])
    >>> fig = plot_accuracy_comparison(wide)
    >>> ax = fig.axes[0]
    >>> ax.get_xlabel(), ax.get_ylabel(), len(ax.collections[0].get_offsets())
    ('NB accuracy', 'TAN accuracy', 3)
    """
    check_option(kind, "kind", ("scatter", "bar"))
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}.")
    means, stds = _comparison_tables(data, metric, dataset_col)
    names = list(means.columns) if learners is None else list(learners)
    missing = [n for n in names if n not in means.columns]
    if missing:
        raise ValueError(f"learners {missing!r} are not in the data (learners: {list(means.columns)!r}).")
    if kind == "scatter":
        if len(names) != 2:
            raise ValueError(f"kind='scatter' compares exactly 2 learners, got {len(names)} ({names!r}); pass "
                             "learners=[A, B] or use kind='bar'.")
        a, b = names
        fig, ax = _figure_and_axes(ax, (4.8, 4.8))
        x, y = means[a].to_numpy(float), means[b].to_numpy(float)
        if stds is not None:
            ax.errorbar(x, y, xerr=stds[a].to_numpy(float), yerr=stds[b].to_numpy(float), fmt="none",
                        ecolor="0.6", elinewidth=0.8, capsize=2, gid="errorbars")
        ax.scatter(x, y, zorder=3, gid="points")
        ends = [x, y]
        if stds is not None:  # keep the error bars inside the axes
            ex, ey = stds[a].to_numpy(float), stds[b].to_numpy(float)
            ends += [x - ex, x + ex, y - ey, y + ey]
        finite = np.concatenate([e[np.isfinite(e)] for e in ends])
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        pad = 0.05 * (hi - lo) if hi > lo else 0.05
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], linestyle="--", color="0.4", linewidth=1.0,
                gid="diagonal")
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
        ax.set_aspect("equal", adjustable="box")
        if annotate:
            for name, xi, yi in zip(means.index, x, y):
                if str(name):
                    ax.annotate(str(name), (xi, yi), xytext=(3, 3), textcoords="offset points", fontsize=8)
        wins_b, wins_a = int((y > x).sum()), int((x > y).sum())
        ax.text(0.03, 0.97, f"{b} better: {wins_b}\n{a} better: {wins_a}", transform=ax.transAxes, va="top",
                fontsize=8, gid="wins")
        ax.set_xlabel(f"{a} {metric}")
        ax.set_ylabel(f"{b} {metric}")
    else:
        nd, kk = means.shape[0], len(names)
        fig, ax = _figure_and_axes(ax, (max(4.0, 1.2 + 0.5 * nd * kk), 3.6))
        width = 0.8 / kk
        pos = np.arange(nd)
        for j, name in enumerate(names):
            err = None if stds is None else stds[name].to_numpy(float)
            ax.bar(pos + (j - (kk - 1) / 2) * width, means[name].to_numpy(float), width, yerr=err, capsize=3,
                   label=name, gid=f"learner:{name}")
        ax.set_xticks(pos)
        ax.set_xticklabels([str(i) for i in means.index])
        ax.set_ylabel(metric)
        ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    return fig


# ---------------------------------------------------------------------------------------------- SBN monitor
_K_NAMES = ("k_bits", "k_e", "k")
_CUM_NAMES = ("K_bits", "K_e", "K")


def _monitor_frame(trace) -> pd.DataFrame:
    if hasattr(trace, "monitor_trace_"):
        trace = trace.monitor_trace_
    elif hasattr(trace, "structure_") and isinstance(getattr(trace.structure_, "trace", None), Mapping):
        trace = trace.structure_.trace
    elif isinstance(getattr(trace, "trace", None), Mapping):
        trace = trace.trace
    if isinstance(trace, Mapping):
        if "monitor" not in trace:
            raise ValueError("the trace dict has no 'monitor' entry; pass the SBN monitor records or DataFrame.")
        trace = trace["monitor"]
    if isinstance(trace, pd.DataFrame):
        return trace.reset_index(drop=True)
    if isinstance(trace, Sequence) and not isinstance(trace, (str, bytes)):
        if not all(isinstance(r, Mapping) for r in trace):
            raise TypeError("the monitor trace must be a DataFrame or a list of dict records.")
        return pd.DataFrame.from_records(list(trace))
    raise TypeError(f"the monitor trace must be a DataFrame, a list of dict records, a fitted SBN classifier or a "
                    f"structure with trace['monitor'], got {type(trace).__name__}.")


def _first_column(frame: pd.DataFrame, names: Sequence[str]):
    for n in names:
        if n in frame.columns:
            return n
    return None


def plot_sbn_monitor(trace, *, ax=None, title: str | None = None, edge_labels: bool | None = None):
    r"""The SBN Bayesian complexity monitor along the Kruskal edge sequence (seed 000 section 2.3, thesis Fig. 3.7).

    Bars show the per-edge value ``k_e = 2 m - N Î_2(e)`` (an edge lowers the posterior of the structure when
    ``k_e > 0``) and the line the cumulative ``K_e = sum_{i<=e} k_i`` relative to naive Bayes, both in bits,
    against the edge index; a dashed line marks the last accepted edge.

    Parameters
    ----------
    trace : DataFrame, list of dict, fitted SBN classifier, or structure / dict with a ``"monitor"`` entry
        One row (record) per Kruskal edge, in order. Recognised columns:

        * ``k_bits``, ``k_e`` or ``k``: the per-edge value (required);
        * ``K_bits``, ``K_e`` or ``K``: the cumulative value (default: the running sum of k);
        * ``step``: the edge index (default 1, 2, ...);
        * ``edge``: the (u, v) pair, used as tick labels;
        * ``accepted``: bool, colours the bars and places the stopping line;
        * ``cmi_bits`` and other columns are ignored.

        ``SBNClassifier.monitor_trace_`` and ``structure_.trace["monitor"]`` have this form and are accepted
        directly, as is the fitted classifier itself.
    ax : matplotlib Axes, optional
    title : str, optional
    edge_labels : bool, optional
        Label the ticks with the edges (default: when there is an ``edge`` column and at most 30 edges).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> records = [{"edge": ("a", "b"), "k": -5.0, "accepted": True}, {"edge": ("b", "c"), "k": -1.0, "accepted": True},
    ...            {"edge": ("c", "d"), "k": 2.5, "accepted": False}]
    >>> fig = plot_sbn_monitor(records)
    >>> line = [l for l in fig.axes[0].lines if l.get_gid() == "K_e"][0]
    >>> line.get_ydata().tolist()
    [-5.0, -6.0, -3.5]
    """
    frame = _monitor_frame(trace)
    kcol = _first_column(frame, _K_NAMES)
    if kcol is None:
        raise ValueError(f"the monitor trace needs a per-edge column named one of {_K_NAMES!r}; it has "
                         f"{list(frame.columns)!r}.")
    k = frame[kcol].to_numpy(dtype=float)
    ccol = _first_column(frame, _CUM_NAMES)
    K = frame[ccol].to_numpy(dtype=float) if ccol is not None else np.cumsum(k)
    steps = frame["step"].to_numpy(dtype=float) if "step" in frame.columns else np.arange(1, k.shape[0] + 1,
                                                                                            dtype=float)
    accepted = frame["accepted"].to_numpy(dtype=bool) if "accepted" in frame.columns else None
    fig, ax = _figure_and_axes(ax, (6.4, 3.8))
    colors = ["C0"] * k.shape[0] if accepted is None else ["C0" if a else "0.7" for a in accepted]
    ax.bar(steps, k, width=0.6, color=colors, label="$k_e$ (per edge)", gid="k_e")
    ax.plot(steps, K, marker="o", color="C3", label="$K_e$ (cumulative)", gid="K_e")
    ax.axhline(0.0, color="black", linewidth=0.8, gid="zero")
    if accepted is not None and accepted.any():
        last = steps[np.flatnonzero(accepted)[-1]]
        ax.axvline(last + 0.5, color="0.3", linestyle="--", linewidth=1.0, label="stop", gid="stop")
    show_edges = edge_labels if edge_labels is not None else ("edge" in frame.columns and k.shape[0] <= 30)
    if show_edges and "edge" in frame.columns:
        labels = [("–".join(str(v) for v in e) if isinstance(e, (tuple, list)) else str(e)) for e in frame["edge"]]
        ax.set_xticks(steps)
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    ax.set_xlabel("edge (Kruskal order)")
    ax.set_ylabel("bits")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    if ax.figure is fig and len(fig.axes) == 1:
        fig.tight_layout()
    return fig
