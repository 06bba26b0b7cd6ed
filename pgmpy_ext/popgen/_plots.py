"""Population-structure plots: the STRUCTURE/DISTRUCT membership bar plot and F_ST against the number of clusters.

matplotlib is imported only when a plot is made; figures are built with ``matplotlib.figure.Figure`` (no pyplot).
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_fst_by_k", "plot_structure_bars"]


def _figure_and_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from err
    fig = Figure(figsize=figsize)
    return fig, fig.add_subplot()


def plot_structure_bars(q, populations=None, *, ax=None, order=None, colors=None, sort_within: bool = True,
                        title: str | None = None, figsize=(10, 2.5)):
    """STRUCTURE/DISTRUCT-style membership bar plot: one stacked bar per individual, grouped by population.

    Parameters
    ----------
    q : array-like (n_individuals, n_clusters) or fitted PopulationEMA
        Memberships (a fitted ``PopulationEMA`` gives its ``q_`` and, when ``populations`` is None, its
        ``populations_``).
    populations : array-like (n_individuals,), optional
        Group labels; groups are separated by black lines and labelled below the bars.
    ax : matplotlib Axes, optional
    order : sequence, optional
        Order of the population groups (default: order of first appearance).
    colors : sequence of colours, optional
        One per cluster (default: the ``tab10``/``tab20`` cycle).
    sort_within : bool, default True
        Sort the individuals of each group by their dominant cluster and membership (DISTRUCT's habit).
    title : str, optional
    figsize : tuple, default (10, 2.5)

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> q = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.3, 0.7]])
    >>> fig = plot_structure_bars(q, ["A", "A", "B", "B"])
    >>> len(fig.axes[0].patches)
    8
    """
    if hasattr(q, "q_"):
        populations = q.populations_ if populations is None else populations
        q = q.q_
    q = np.asarray(q, dtype=float)
    if q.ndim != 2:
        raise ValueError(f"q must be (n_individuals, n_clusters), got shape {q.shape}.")
    n, K = q.shape
    if populations is None:
        pops = np.zeros(n, dtype=object)
        groups = [0]
    else:
        pops = np.asarray(populations, dtype=object)
        if pops.shape != (n,):
            raise ValueError(f"populations has {pops.size} labels for {n} individuals.")
        seen = list(dict.fromkeys(pops.tolist()))
        groups = list(order) if order is not None else seen
        missing = set(seen) - set(groups)
        if missing:
            raise ValueError(f"order does not list the populations {sorted(map(str, missing))}.")
    idx, bounds = [], []
    for grp in groups:
        members = np.flatnonzero(pops == grp)
        if sort_within and len(members):
            dom = np.argmax(q[members], axis=1)
            members = members[np.lexsort((-q[members, :].max(axis=1), dom))]
        bounds.append((len(idx), len(idx) + len(members)))
        idx.extend(members.tolist())
    fig, ax = _figure_and_axes(ax, figsize)
    if colors is None:
        from matplotlib import colormaps

        cmap = colormaps["tab10" if K <= 10 else "tab20"]
        colors = [cmap(j % cmap.N) for j in range(K)]
    x = np.arange(len(idx))
    bottom = np.zeros(len(idx))
    for j in range(K):
        ax.bar(x, q[idx, j], bottom=bottom, width=1.0, color=colors[j], linewidth=0, label=f"cluster {j}")
        bottom += q[idx, j]
    ax.set_xlim(-0.5, len(idx) - 0.5)
    ax.set_ylim(0, 1)
    ax.set_ylabel("membership")
    if populations is not None:
        for lo, hi in bounds[1:]:
            ax.axvline(lo - 0.5, color="black", linewidth=0.8)
        ax.set_xticks([(lo + hi - 1) / 2 for lo, hi in bounds])
        ax.set_xticklabels([str(g) for g in groups], rotation=45 if len(groups) > 6 else 0, ha="right"
                           if len(groups) > 6 else "center")
    else:
        ax.set_xticks([])
    if title:
        ax.set_title(title)
    return fig


def plot_fst_by_k(result, *, ax=None, title: str | None = None, figsize=(4.5, 3.5)):
    """F_ST of every run against the number of clusters, with the mean per K (spec 9.4).

    Parameters
    ----------
    result : NClustersResult or dict
        A :func:`choose_n_clusters` result, or ``{K: array of F_ST values}``.
    ax : matplotlib Axes, optional
    title : str, optional
    figsize : tuple, default (4.5, 3.5)

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_fst_by_k({2: [0.02, 0.021], 3: [0.03, 0.032], 4: [0.031, 0.029]})
    >>> fig.axes[0].get_xlabel()
    'number of clusters K'
    """
    fst = result.fst if hasattr(result, "fst") else dict(result)
    ks = sorted(fst)
    fig, ax = _figure_and_axes(ax, figsize)
    for k in ks:
        v = np.asarray(fst[k], dtype=float)
        jitter = np.linspace(-0.08, 0.08, len(v)) if len(v) > 1 else np.zeros(len(v))
        ax.scatter(k + jitter, v, s=14, color="0.5", zorder=2)
    means = [float(np.nanmean(np.asarray(fst[k], dtype=float))) for k in ks]
    ax.plot(ks, means, "o-", color="C0", zorder=3, label="mean")
    ax.set_xticks(ks)
    ax.set_xlabel("number of clusters K")
    ax.set_ylabel("Reynolds F_ST")
    ax.legend(frameon=False)
    if title:
        ax.set_title(title)
    return fig
