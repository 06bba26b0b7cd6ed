"""Plots of evaluation results (matplotlib): critical-difference diagram, accuracy comparison, SBN monitor curve,
per-fold accuracies of one data set, ranks over data sets, cluster profiles and membership bars (issue 18).

No function calls ``pyplot.show``. :func:`plot_critical_difference`, :func:`plot_accuracy_comparison` and
:func:`plot_sbn_monitor` return a ``matplotlib.figure.Figure``; the issue-18 functions (:func:`plot_fold_accuracies`,
:func:`plot_ranks_over_datasets`, :func:`plot_cluster_profiles`, :func:`plot_membership`) return the ``Axes`` they
drew on (``ax.figure`` is the figure). Without an ``ax`` the figure
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

__all__ = ["cluster_profiles", "mean_scores_by_dataset", "plot_accuracy_comparison", "plot_cluster_profiles",
           "plot_critical_difference", "plot_fold_accuracies", "plot_membership", "plot_ranks_over_datasets",
           "plot_sbn_monitor"]


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
    r"""The SBN Bayesian complexity monitor along the Kruskal edge sequence (Ruz's thesis, eqs. 3.6-3.7 and
    Fig. 3.7).

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


# ---------------------------------------------------------------------------------------------- issue 18: new plots
# The functions below take ``ax=`` and return the Axes they drew on (a new ``Figure`` when ``ax`` is None).
def _new_axes(ax, figsize):
    return _figure_and_axes(ax, figsize)[1]


def _fold_interval(values: np.ndarray, confidence: float, test_over_train: float | None) -> tuple[float, float, str]:
    """(lower, upper, name) of the confidence interval of the mean of ``values`` (one score per fold).

    Student t over the ``J`` folds, ``J - 1`` d.f.; with ``test_over_train = n_test / n_train`` the variance of the
    mean is Nadeau & Bengio's corrected ``(1/J + n_test/n_train) s^2`` instead of ``s^2 / J`` (fold estimates from
    overlapping training sets are correlated; the plain t interval is too narrow). NaN bounds with fewer than 2
    folds."""
    from scipy import stats

    J = values.shape[0]
    if J < 2:
        return float("nan"), float("nan"), "none"
    mean = float(values.mean())
    s2 = float(values.var(ddof=1))
    if test_over_train is None:
        var, name = s2 / J, "Student t"
    else:
        var, name = (1.0 / J + test_over_train) * s2, "corrected resampled t"
    half = float(stats.t.ppf(0.5 + confidence / 2.0, J - 1)) * math.sqrt(var)
    return mean - half, mean + half, name


def _one_dataset(results: pd.DataFrame, dataset, dataset_col: str) -> tuple[pd.DataFrame, object]:
    if dataset_col in results.columns:
        names = list(dict.fromkeys(results[dataset_col]))
        if dataset is None:
            if len(names) > 1:
                raise ValueError(f"results has {len(names)} data sets in column {dataset_col!r} ({names[:5]!r}); "
                                 "pass dataset=NAME for one of them, or use plot_ranks_over_datasets for all.")
            dataset = names[0] if names else None
        elif dataset not in names:
            raise ValueError(f"dataset {dataset!r} is not in results[{dataset_col!r}] (data sets: {names!r}).")
        results = results[results[dataset_col] == dataset]
    return results, dataset


def plot_fold_accuracies(results: pd.DataFrame, learners: Sequence[str] | None = None, *, dataset=None,
                         confidence: float = 0.95, interval: str = "auto", metric: str = "accuracy",
                         dataset_col: str = "dataset", show_folds: bool | None = None, ax=None,
                         title: str | None = None):
    r"""Per-fold scores of several learners on ONE data set: the folds as points, the mean and a confidence interval.

    One row per learner (top to bottom in the order of ``learners``, by default the order in which the learners
    first appear in ``results``, i.e. the order given to :func:`cross_validate_learners`). Each fold's score is a
    point, spread vertically by a fixed pseudo-random jitter (the same picture on every call); a diamond marks the
    mean and a thick line its confidence interval, with the mean written at the right. The score axis is zoomed
    on the data (points and intervals, plus margins), not 0-1, so that differences of a point or two show.

    Parameters
    ----------
    results : DataFrame
        The tidy per-fold table of :func:`cross_validate_learners` (columns ``learner``, ``metric``, and
        ``n_train``/``n_test`` for the corrected interval). With a ``dataset_col`` column (several tables
        concatenated) one data set is selected by ``dataset``.
    learners : sequence of str, optional
        Learners shown, in this order (default: all, in order of first appearance).
    dataset : optional
        The data set to show when ``results`` has a ``dataset_col`` column with several; otherwise only used in the
        default title.
    confidence : float in (0, 1), default 0.95
    interval : {"auto", "corrected", "t"}, default "auto"
        ``"t"``: Student t over the ``J`` folds, :math:`\bar a \pm t_{J-1} s/\sqrt{J}`. ``"corrected"``: Nadeau &
        Bengio's corrected resampled t, :math:`\bar a \pm t_{J-1} \sqrt{(1/J + n_2/n_1) s^2}` (``n_2/n_1`` =
        mean test over mean training rows; for repeated k-fold this is Bouckaert & Frank's corrected repeated
        k-fold t), which accounts for the overlap of the training sets. ``"auto"``: corrected when ``results``
        has ``n_train`` and ``n_test``, else t. No interval with a single fold.
    metric : str, default "accuracy"
    dataset_col : str, default "dataset"
    show_folds : bool, optional
        Draw the fold points (default: yes, unless every fold has one test row, as in leave-one-out, where they
        are all 0 or 1).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        Artists: ``gid="folds:<learner>"`` (the points), ``"mean:<learner>"``, ``"ci:<learner>"``.

    References
    ----------
    C. Nadeau and Y. Bengio, "Inference for the generalization error", Machine Learning 52 (2003) 239-281.
    R. R. Bouckaert and E. Frank, "Evaluating the replicability of significance tests for comparing learning
    algorithms", PAKDD 2004.

    Examples
    --------
    >>> import pandas as pd
    >>> res = pd.DataFrame({"learner": ["NB"] * 3 + ["TAN"] * 3, "fold": [0, 1, 2] * 2,
    ...                     "accuracy": [0.90, 0.92, 0.91, 0.94, 0.95, 0.93]})
    >>> ax = plot_fold_accuracies(res, interval="t")
    >>> [t.get_text() for t in ax.get_yticklabels()], bool(ax.get_xlim()[0] > 0.8)
    (['NB', 'TAN'], True)
    """
    check_option(interval, "interval", ("auto", "corrected", "t"))
    if not isinstance(results, pd.DataFrame):
        raise TypeError(f"results must be a pandas DataFrame (the table of cross_validate_learners), got "
                        f"{type(results).__name__}.")
    for col in ("learner", metric):
        if col not in results.columns:
            raise ValueError(f"results lacks column {col!r}; pass the DataFrame returned by cross_validate_learners.")
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence == {confidence!r}, must be in (0, 1).")
    results, dataset = _one_dataset(results, dataset, dataset_col)
    present = list(dict.fromkeys(results["learner"]))
    names = present if learners is None else list(learners)
    missing = [n for n in names if n not in present]
    if missing:
        raise ValueError(f"learners {missing!r} are not in the results (learners: {present!r}).")
    if not names:
        raise ValueError("results has no rows to plot.")
    has_sizes = {"n_train", "n_test"} <= set(results.columns)
    if interval == "corrected" and not has_sizes:
        raise ValueError("interval='corrected' needs the n_train and n_test columns of cross_validate_learners; "
                         "use interval='t'.")
    corrected = interval == "corrected" or (interval == "auto" and has_sizes)
    if show_folds is None:
        show_folds = not (has_sizes and (results["n_test"] == 1).all())
    ax = _new_axes(ax, (6.4, 1.2 + 0.55 * len(names)))
    jitter_rng = np.random.default_rng(0)
    lows, highs, how = [], [], "none"
    for row, name in enumerate(names):
        g = results[results["learner"] == name]
        vals = g[metric].to_numpy(dtype=float)
        vals = vals[np.isfinite(vals)]
        if vals.size == 0:
            raise ValueError(f"learner {name!r} has no finite {metric!r} value.")
        ratio = None
        if corrected:
            n_train, n_test = float(g["n_train"].mean()), float(g["n_test"].mean())
            ratio = n_test / n_train if n_train > 0 else None
        lo, hi, how_i = _fold_interval(vals, confidence, ratio)
        how = how_i if how_i != "none" else how
        mean = float(vals.mean())
        if show_folds:
            jitter = jitter_rng.uniform(-0.22, 0.22, vals.shape[0])
            ax.scatter(vals, row + jitter, s=14, color="C0", alpha=0.55, linewidths=0, zorder=2,
                       gid=f"folds:{name}")
            lows.append(vals.min())
            highs.append(vals.max())
        if np.isfinite(lo):
            ax.plot([lo, hi], [row, row], color="C3", linewidth=2.6, solid_capstyle="butt", zorder=3,
                    gid=f"ci:{name}")
            lows.append(lo)
            highs.append(hi)
        ax.plot([mean], [row], marker="D", markersize=7, color="C3", markeredgecolor="black", linestyle="none",
                zorder=4, gid=f"mean:{name}")
        lows.append(mean)
        highs.append(mean)
    lo, hi = float(min(lows)), float(max(highs))
    pad = 0.08 * (hi - lo) if hi > lo else 0.01
    ax.set_xlim(lo - pad, hi + pad)
    for row, name in enumerate(names):  # the means, right of the axes (x in axes coordinates, y in data)
        mean = float(results.loc[results["learner"] == name, metric].mean())
        label = f"{100 * mean:.2f}%" if metric == "accuracy" else f"{mean:.4g}"
        ax.text(1.02, row, label, va="center", ha="left", fontsize=8, transform=ax.get_yaxis_transform(),
                gid=f"mean-label:{name}")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([str(n) for n in names])
    ax.set_ylim(len(names) - 0.5, -0.5)
    if metric == "accuracy":
        from matplotlib.ticker import PercentFormatter

        ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=None))
    n_folds = int(results.groupby("learner").size().max())
    ax.set_xlabel(f"{metric} ({'points: ' + str(n_folds) + ' folds; ' if show_folds else ''}"
                  f"◆ mean{'' if how == 'none' else f'; line: {100 * confidence:g}% CI, {how}'})")
    ax.grid(axis="x", color="0.9", linewidth=0.8, zorder=0)
    ax.set_axisbelow(True)
    if title is None:
        title = f"{dataset}: {metric} per fold" if dataset not in (None, "") else f"{metric} per fold"
    if title:
        ax.set_title(title)
    return ax


def mean_scores_by_dataset(results: pd.DataFrame, learners: Sequence[str] | None = None, *,
                           metric: str = "accuracy", dataset_col: str = "dataset") -> pd.DataFrame:
    """Mean ``metric`` per (data set, learner) of concatenated per-fold tables: rows data sets, columns learners.

    Data sets and learners keep their order of first appearance (``learners`` sets the columns). A learner missing
    on some data set leaves NaN there.

    Examples
    --------
    >>> import pandas as pd
    >>> res = pd.DataFrame({"dataset": ["a", "a", "b", "b"], "learner": ["NB", "TAN"] * 2,
    ...                     "accuracy": [0.8, 0.9, 0.7, 0.6]})
    >>> mean_scores_by_dataset(res).to_dict("list")
    {'NB': [0.8, 0.7], 'TAN': [0.9, 0.6]}
    """
    for col in ("learner", metric, dataset_col):
        if col not in results.columns:
            raise ValueError(f"results lacks column {col!r}; concatenate the cross_validate_learners tables of each "
                             f"data set with a {dataset_col!r} column.")
    present = list(dict.fromkeys(results["learner"]))
    names = present if learners is None else list(learners)
    missing = [n for n in names if n not in present]
    if missing:
        raise ValueError(f"learners {missing!r} are not in the results (learners: {present!r}).")
    datasets = list(dict.fromkeys(results[dataset_col]))
    wide = results.groupby([dataset_col, "learner"], sort=False)[metric].mean().unstack("learner")
    wide = wide.reindex(index=datasets, columns=names)
    wide.columns.name = None
    return wide


def plot_ranks_over_datasets(results: pd.DataFrame, learners: Sequence[str] | None = None, *,
                             metric: str = "accuracy", dataset_col: str = "dataset", alpha: float = 0.05, ax=None,
                             title: str | None = None):
    """Critical-difference diagram of several learners over SEVERAL data sets from the tidy per-fold table.

    The mean ``metric`` per (learner, data set) (:func:`mean_scores_by_dataset`) is ranked within each data set,
    :func:`friedman_test` gives the average ranks, the Friedman p-value and the Nemenyi critical difference, and
    :func:`plot_critical_difference` draws them (Demšar 2006). This is the comparison across data sets; for one
    data set use :func:`plot_fold_accuracies` (folds of one data set are not independent data sets).

    Parameters
    ----------
    results : DataFrame
        :func:`cross_validate_learners` tables of each data set concatenated, with a ``dataset_col`` column.
    learners : sequence of str, optional
    metric : str, default "accuracy"
    dataset_col : str, default "dataset"
    alpha : float, default 0.05
        Level of the Nemenyi critical difference.
    ax : matplotlib Axes, optional
    title : str, optional
        Default: the number of data sets and the Friedman p-value.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> res = pd.DataFrame({"dataset": list("aabbcc"), "learner": ["NB", "TAN"] * 3,
    ...                     "accuracy": [0.8, 0.9, 0.7, 0.75, 0.6, 0.65]})
    >>> ax = plot_ranks_over_datasets(res)
    >>> sorted(t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("learner:"))
    ['NB (2.00)', 'TAN (1.00)']
    """
    from pgmpy_ext.evaluation._significance import friedman_test

    wide = mean_scores_by_dataset(results, learners, metric=metric, dataset_col=dataset_col)
    incomplete = wide.index[wide.isna().any(axis=1)].tolist()
    if incomplete:
        raise ValueError(f"data sets {incomplete!r} lack a {metric!r} for some learner; every learner must be "
                         "evaluated on every data set.")
    if wide.shape[0] < 2:
        raise ValueError(f"a critical-difference diagram over data sets needs at least 2 data sets, got "
                         f"{wide.shape[0]}; for one data set use plot_fold_accuracies.")
    fr = friedman_test(wide, alpha=alpha)
    if title is None:
        title = f"average {metric} ranks over {wide.shape[0]} data sets (Friedman p = {fr.pvalue:.3g})"
    fig, ax = _figure_and_axes(ax, (6.4, 1.6 + 0.32 * int(math.ceil(wide.shape[1] / 2))))
    plot_critical_difference(fr, ax=ax, title=title)
    return ax


# ---------------------------------------------------------------------------------------------- cluster profiles
def _cpd_given(cpd, node: str, cluster_node: str | None, M: dict, K: int) -> np.ndarray:
    """P(node | cluster) of shape (r, K) from ``node``'s CPD and the (r_p, K) table of its one attribute parent."""
    evidence = list(cpd.variables[1:])
    cards = [int(c) for c in cpd.cardinality]
    arr = np.asarray(cpd.get_values(), dtype=np.float64).reshape(cards)
    if not evidence:
        return np.repeat(arr[:, None], K, axis=1)
    attrs = [v for v in evidence if v != cluster_node]
    if cluster_node in evidence and not attrs:
        return arr
    (p,) = attrs
    if cluster_node not in evidence:
        return arr @ M[p]
    axes = (0, 1 + evidence.index(p), 1 + evidence.index(cluster_node))
    return np.einsum("ipk,pk->ik", arr.transpose(axes), M[p])


def _conditional_marginals(model, cluster_node: str | None, features: list) -> tuple[dict, list]:
    """``({feature: (states, P(feature | cluster) as (r, K))}, cluster states)``, exact.

    When the cluster node is a root and every other node has at most one parent besides it (naive Bayes, TAN,
    SBN, the CL trees, latent-class models), the tables are propagated down the forest in topological order
    (``P(x_i | c) = sum_p P(x_i | p, c) P(p | c)``); otherwise pgmpy's ``VariableElimination`` answers each
    ``P(X_i | cluster = k)``."""
    if cluster_node is None:
        cstates, K = [None], 1
    else:
        cstates = list(model.get_cpds(cluster_node).state_names[cluster_node])
        K = len(cstates)
    simple = (cluster_node is None or not list(model.predecessors(cluster_node))) and all(
        len([p for p in model.predecessors(n) if p != cluster_node]) <= 1 for n in model.nodes())
    out = {}
    if simple:
        import networkx as nx

        M = {}
        for node in nx.lexicographical_topological_sort(model, key=str):
            if node == cluster_node:
                continue
            cpd = model.get_cpds(node)
            M[node] = _cpd_given(cpd, node, cluster_node, M, K)
        for f in features:
            out[f] = (list(model.get_cpds(f).state_names[f]), M[f])
        return out, cstates
    from pgmpy_ext._compat import VariableElimination

    ve = VariableElimination(model)
    for f in features:
        states = list(model.get_cpds(f).state_names[f])
        cols = []
        for s in cstates:
            ev = None if cluster_node is None else {cluster_node: s}
            q = ve.query([f], evidence=ev, show_progress=False)
            cols.append([float(q.get_value(**{f: x})) for x in states])
        out[f] = (states, np.asarray(cols, dtype=np.float64).T)
    return out, cstates


def cluster_profiles(model_or_estimator, *, features: Sequence[str] | None = None,
                     cluster_node: str | None = None) -> pd.DataFrame:
    r"""The exact cluster-conditional marginals :math:`P(X_i = x \mid \text{cluster} = k)` of a fitted mixture.

    Parameters
    ----------
    model_or_estimator : fitted clusterer or pgmpy DiscreteBayesianNetwork
        A fitted :class:`~pgmpy_ext.clustering.CEMClustering` (or any clusterer with ``model_`` and
        ``cluster_node_``, or a multinet ``models_ = {k: network}``), or a network with a cluster node.
    features : sequence of str, optional
        Default: every node but the cluster node, in the network's node order.
    cluster_node : str, optional
        The cluster (latent class) node of a network; default the estimator's ``cluster_node_``, or the network's
        only latent node.

    Returns
    -------
    DataFrame
        Index ``(feature, state)``, one column per cluster (its state); every feature's block sums to 1 per
        column.

    Notes
    -----
    For a network, ``P(X_i | cluster)`` marginalises the other parents of ``X_i`` (the augmenting arcs of TAN and
    SBN): with the cluster a root and at most one attribute parent per node this is the exact propagation
    :math:`P(x_i \mid k) = \sum_{x_p} P(x_i \mid x_p, k) P(x_p \mid k)` down the forest; any other structure goes
    through pgmpy's ``VariableElimination``. For a multinet, cluster ``k``'s column is the marginal of ``X_i`` in
    ``models_[k]``.
    """
    from pgmpy.models import DiscreteBayesianNetwork

    if isinstance(getattr(model_or_estimator, "models_", None), Mapping):
        models = model_or_estimator.models_
        keys = list(models)
        feats = list(features) if features is not None else list(models[keys[0]].nodes())
        per = {}
        for k in keys:
            _check_features(models[k], feats, None)
            per[k] = _conditional_marginals(models[k], None, feats)[0]
        index = [(f, s) for f in feats for s in per[keys[0]][f][0]]
        data = {k: np.concatenate([per[k][f][1][:, 0] for f in feats]) for k in keys}
        return pd.DataFrame(data, index=pd.MultiIndex.from_tuples(index, names=["feature", "state"]))
    if isinstance(model_or_estimator, DiscreteBayesianNetwork):
        model = model_or_estimator
    elif isinstance(getattr(model_or_estimator, "model_", None), DiscreteBayesianNetwork):
        model = model_or_estimator.model_
        if cluster_node is None:
            cluster_node = getattr(model_or_estimator, "cluster_node_", None)
    else:
        raise TypeError(f"model_or_estimator must be a fitted clusterer (with model_ or models_) or a pgmpy "
                        f"DiscreteBayesianNetwork, got {type(model_or_estimator).__name__}; fit it first.")
    if cluster_node is None:
        latents = sorted(getattr(model, "latents", set()) or set(), key=str)
        if len(latents) != 1:
            raise ValueError(f"the network has {len(latents)} latent nodes ({latents!r}); pass cluster_node=NAME.")
        cluster_node = latents[0]
    if cluster_node not in model.nodes():
        raise ValueError(f"cluster_node {cluster_node!r} is not a node of the network (nodes: "
                         f"{list(model.nodes())!r}).")
    feats = list(features) if features is not None else [n for n in model.nodes() if n != cluster_node]
    _check_features(model, feats, cluster_node)
    per, cstates = _conditional_marginals(model, cluster_node, feats)
    index = [(f, s) for f in feats for s in per[f][0]]
    mat = np.concatenate([per[f][1] for f in feats], axis=0)
    return pd.DataFrame(mat, index=pd.MultiIndex.from_tuples(index, names=["feature", "state"]), columns=cstates)


def _check_features(model, feats: list, cluster_node) -> None:
    bad = [f for f in feats if f not in model.nodes() or f == cluster_node]
    if bad:
        raise ValueError(f"features {bad!r} are not attributes of the network (attributes: "
                         f"{[n for n in model.nodes() if n != cluster_node]!r}).")
    if not feats:
        raise ValueError("features is empty; give at least one attribute.")


def plot_cluster_profiles(model_or_estimator, *, features: Sequence[str] | None = None,
                          cluster_node: str | None = None, annotate: bool | None = None, cmap: str = "viridis",
                          ax=None, title: str | None = None):
    r"""Heat map of the cluster profiles :math:`P(X_i = x \mid \text{cluster})` of a fitted mixture.

    Rows are ``feature = state`` grouped by feature (white lines between features), columns the clusters
    (labelled with their mixing weight when the estimator has ``weights_``); colour from 0 to 1 with a colour
    bar, and the values written in the cells when the grid is small. The values are the exact marginals of
    :func:`cluster_profiles`.

    Parameters
    ----------
    model_or_estimator : fitted clusterer or pgmpy DiscreteBayesianNetwork
        See :func:`cluster_profiles` (CEM-CL's ``models_``, CEM-TAN/SBN's ``model_``, or a network with a
        latent cluster node, e.g. from EM).
    features : sequence of str, optional
    cluster_node : str, optional
    annotate : bool, optional
        Write the probabilities in the cells (default: when there are at most 200 cells).
    cmap : str, default "viridis"
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        The image has ``gid="profiles"`` and its array is the table of :func:`cluster_profiles`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.clustering import CEMClustering
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 200)
    >>> X = pd.DataFrame({f"x{j}": np.where(rng.random(200) < 0.85, z, 1 - z) for j in range(3)})
    >>> cem = CEMClustering(2, model="tan", n_init=2, n_stochastic_steps=5, random_state=0).fit(X)
    >>> ax = plot_cluster_profiles(cem)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['x0 = 0', 'x0 = 1', 'x1 = 0', 'x1 = 1', 'x2 = 0', 'x2 = 1']
    """
    table = cluster_profiles(model_or_estimator, features=features, cluster_node=cluster_node)
    n_rows, K = table.shape
    mat = table.to_numpy(dtype=np.float64)
    ax = _new_axes(ax, (2.6 + 0.75 * K, 1.4 + 0.24 * n_rows))
    im = ax.imshow(mat, aspect="auto", cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    im.set_gid("profiles")
    feats = list(dict.fromkeys(table.index.get_level_values(0)))
    ax.set_yticks(range(n_rows))
    ax.set_yticklabels([f"{f} = {s}" for f, s in table.index], fontsize=8)
    weights = getattr(model_or_estimator, "weights_", None)
    cols = [str(c) for c in table.columns]
    if weights is not None and len(weights) == K:
        cols = [f"{c}\n({100 * float(w):.0f}%)" for c, w in zip(cols, weights)]
    ax.set_xticks(range(K))
    ax.set_xticklabels(cols, fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xlabel("cluster (mixing weight)" if weights is not None else "cluster")
    ax.xaxis.set_label_position("top")
    ax.tick_params(axis="both", length=0)
    bounds = np.cumsum([int((table.index.get_level_values(0) == f).sum()) for f in feats])[:-1]
    for b in bounds:
        ax.axhline(b - 0.5, color="white", linewidth=2.0, gid="feature-separator")
    if annotate is None:
        annotate = n_rows * K <= 200
    if annotate:
        for i in range(n_rows):
            for j in range(K):
                v = mat[i, j]
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if v > 0.6 else "white", gid="value")
    cbar = ax.figure.colorbar(im, ax=ax, fraction=0.08, pad=0.03)
    cbar.set_label(r"$P(X_i = x \mid \mathrm{cluster})$")
    if title is None:
        title = "cluster profiles"
    if title:
        ax.set_title(title, pad=28 if "\n" in cols[0] else 18)
    return ax


# ---------------------------------------------------------------------------------------------- membership
def plot_membership(proba, groups=None, *, group_order: Sequence | None = None, sort: bool = True,
                    cluster_labels: Sequence[str] | None = None, colors: Sequence | None = None, ax=None,
                    title: str | None = None):
    """STRUCTURE-style membership plot: one stacked bar per row with its posterior over the K clusters.

    Rows are grouped by ``groups`` (black lines between groups, the group names under the bars) and, with
    ``sort``, ordered inside each group by their dominant cluster (the group's strongest cluster first, by mean
    membership) and then by decreasing membership of the group's strongest cluster, as distruct draws
    STRUCTURE's Q matrix. Works for any (n, K) matrix of memberships: a clusterer's
    ``predict_proba``, admixture proportions, a classifier's posterior, and for a fitted
    :class:`~pgmpy_ext.popgen.PopulationEMA` (its memberships ``q_``, grouped by its ``populations_``). The one
    membership plot of pgmpy-ext (it replaces ``popgen.plot_structure_bars``).

    Parameters
    ----------
    proba : array-like of shape (n_rows, K), or a fitted estimator with ``q_``
        Non-negative rows that sum to 1 (within 1e-6); an estimator with ``q_`` (``PopulationEMA``) gives those,
        and its ``populations_`` (when not None) are the default ``groups``.
    groups : array-like of shape (n_rows,), optional
        A label per row (e.g. the true class or the population).
    group_order : sequence, optional
        Order of the groups left to right (default: sorted labels, or their order of first appearance when the
        labels cannot be sorted). Must list every group.
    sort : bool, default True
        Sort the rows inside each group; False keeps the input order.
    cluster_labels : sequence of str, optional
        Legend names of the K clusters (default ``"cluster 0"``, ...).
    colors : sequence of matplotlib colours, optional
        One per cluster (default the tab10 / tab20 cycle).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid="cluster:<k>"``; group separators ``gid="group-separator"``.

    Examples
    --------
    >>> import numpy as np
    >>> q = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.1, 0.9]])
    >>> ax = plot_membership(q, groups=["a", "a", "b", "b"])
    >>> len(ax.patches), [t.get_text() for t in ax.get_xticklabels()]
    (8, ['a', 'b'])
    """
    if hasattr(proba, "q_"):
        groups = getattr(proba, "populations_", None) if groups is None else groups
        proba = proba.q_
    q = np.asarray(proba, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] == 0 or q.shape[1] == 0:
        raise ValueError(f"proba must be a non-empty 2-D array (n_rows, K), got shape {q.shape}.")
    if not np.all(np.isfinite(q)) or (q < 0).any():
        raise ValueError("proba has a negative, NaN or infinite value; memberships must be probabilities.")
    sums = q.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        r = int(np.flatnonzero(~np.isclose(sums, 1.0, atol=1e-6))[0])
        raise ValueError(f"row {r} of proba sums to {sums[r]:.6g}, expected 1; pass posterior probabilities.")
    n, K = q.shape
    if groups is not None:
        g = np.asarray(groups, dtype=object)
        if g.shape != (n,):
            raise ValueError(f"groups has shape {g.shape}, expected ({n},): one label per row of proba.")
        present = list(dict.fromkeys(g.tolist()))
        if group_order is None:
            try:
                order_g = sorted(present)
            except TypeError:
                order_g = present
        else:
            order_g = list(group_order)
            lacking = [x for x in present if x not in order_g]
            if lacking:
                raise ValueError(f"group_order lacks groups {lacking!r} (groups: {present!r}).")
            order_g = [x for x in order_g if x in present]
    else:
        g = np.zeros(n, dtype=object)
        order_g = [0]
    if cluster_labels is not None and len(cluster_labels) != K:
        raise ValueError(f"cluster_labels has {len(cluster_labels)} names for K = {K} clusters.")
    labels = [str(c) for c in cluster_labels] if cluster_labels is not None else [f"cluster {k}" for k in range(K)]
    if colors is None:
        from matplotlib import colormaps

        cmap = colormaps["tab10" if K <= 10 else "tab20"]
        colors = [cmap(k % cmap.N) for k in range(K)]
    elif len(colors) != K:
        raise ValueError(f"colors has {len(colors)} entries for K = {K} clusters.")
    rows, bounds, centers = [], [], []
    for grp in order_g:
        idx = np.flatnonzero(np.array([x == grp for x in g.tolist()], dtype=bool))
        if sort and idx.size:
            # blocks of rows by dominant cluster, the group's strongest cluster first; inside a block by decreasing
            # membership of that strongest cluster (a smooth ramp from one block to the next)
            major_order = np.argsort(-q[idx].mean(axis=0), kind="stable")
            block_rank = np.empty(K, dtype=np.intp)
            block_rank[major_order] = np.arange(K)
            dom = block_rank[q[idx].argmax(axis=1)]
            idx = idx[np.lexsort((idx, -q[idx, major_order[0]], dom))]
        centers.append(len(rows) + (idx.size - 1) / 2.0)
        rows.extend(idx.tolist())
        bounds.append(len(rows))
    rows = np.asarray(rows, dtype=np.intp)
    ax = _new_axes(ax, (min(12.0, 3.0 + 0.04 * n), 2.8))
    x = np.arange(n)
    bottom = np.zeros(n)
    for k in range(K):
        ax.bar(x, q[rows, k], width=1.0, bottom=bottom, color=colors[k], linewidth=0, label=labels[k],
               gid=f"cluster:{k}")
        bottom += q[rows, k]
    for b in bounds[:-1]:
        ax.axvline(b - 0.5, color="black", linewidth=1.2, gid="group-separator")
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(0.0, 1.0)
    ax.set_ylabel("membership")
    if groups is not None:
        ax.set_xticks(centers)
        ax.set_xticklabels([str(x) for x in order_g], rotation=0 if len(order_g) <= 8 else 45,
                           ha="center" if len(order_g) <= 8 else "right")
        ax.tick_params(axis="x", length=0)
    else:
        ax.set_xticks([])
        ax.set_xlabel("rows" + (" (sorted by dominant cluster)" if sort else ""))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if title:
        ax.set_title(title)
    return ax
