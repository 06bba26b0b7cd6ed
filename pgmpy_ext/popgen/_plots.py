"""Population-structure plots: F_ST against the number of clusters. The STRUCTURE/DISTRUCT membership bar plot is
:func:`pgmpy_ext.evaluation.plot_membership` (give it a fitted ``PopulationEMA``).

matplotlib is imported only when a plot is made; figures are built with ``matplotlib.figure.Figure`` (no pyplot).
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_fst_by_k"]


def _figure_and_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from err
    fig = Figure(figsize=figsize)
    return fig, fig.add_subplot()


def plot_fst_by_k(result, *, ax=None, title: str | None = None, figsize=(4.5, 3.5)):
    """F_ST of every run against the number of clusters, with the mean per K (Santafé 2007, section 8.2.2).

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
