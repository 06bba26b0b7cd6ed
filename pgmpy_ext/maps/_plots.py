"""Pictures of topographic maps (matplotlib, imported only when a plot is made): the map scatter with class markers,
the lattice of neuron means in input space, the posterior of one point over the grid, the log-likelihood trace and
trustworthiness/continuity against k for several methods (thesis Figs. 5.2-5.14).

Every function draws on ``ax`` when given, else on a new ``matplotlib.figure.Figure`` (no pyplot: headless), and
returns the ``Axes`` (``ax.figure`` is the figure; save it with ``ax.figure.savefig(path)``). Nothing calls
``pyplot.show``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_component_planes", "plot_lattice", "plot_ll_trace", "plot_map", "plot_neighbour_distances",
           "plot_posterior", "plot_quality"]

#: Class markers of the thesis's figures ('+', 'O', '*'), then more.
MARKERS = ("+", "o", "*", "x", "s", "^", "v", "D", "<", ">", "p", "h")


def _axes(ax, figsize=(4.5, 4.0)):
    if ax is not None:
        return ax
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover - matplotlib is installed wherever plots are tested
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from err
    return Figure(figsize=figsize).add_subplot()


def plot_map(coords, labels=None, *, ax=None, title=None, highlight=None, grid=None, jitter=None, random_state=0):
    """Scatter of map coordinates (N, 2) with one marker per class (``'+'``, ``'o'``, ``'*'``, ... as in the thesis).

    Parameters
    ----------
    coords : array (N, 2)
        E.g. ``NaiveBayesMap.transform(X)`` (grid ``(row, col)``; drawn with col on x and row on y) or any 2-D
        embedding.
    labels : array (N,), optional
        Classes, one marker each (legend in the order of ``np.unique``).
    highlight : int, optional
        Index of a point to circle (Fig. 5.4(d)).
    grid : (int, int), optional
        Draw the map's frame ``[0, L2 - 1] x [0, L1 - 1]``.
    jitter : float, optional
        Add ``U(-jitter, jitter)`` to every coordinate (drawn from ``random_state``) so that the points of a hard
        projection, which sit on the neurons, become visible as clouds; e.g. 0.3 on a grid.
    random_state : int or numpy.random.Generator, default 0
        The jitter's generator.

    Examples
    --------
    >>> import numpy as np
    >>> ax = plot_map(np.random.default_rng(0).random((20, 2)), labels=[0, 1] * 10, highlight=3)
    >>> len(ax.collections) >= 2
    True
    """
    ax = _axes(ax)
    xy = np.asarray(coords, dtype=float)
    if jitter:
        xy = xy + np.random.default_rng(random_state).uniform(-jitter, jitter, size=xy.shape)
    if grid is not None:
        L1, L2 = grid
        ax.plot([0, L2 - 1, L2 - 1, 0, 0], [0, 0, L1 - 1, L1 - 1, 0], color="0.8", lw=0.8)
    xs, ys = (xy[:, 1], xy[:, 0]) if grid is not None else (xy[:, 0], xy[:, 1])
    if labels is None:
        ax.scatter(xs, ys, s=12, marker="o", facecolors="none", edgecolors="k", linewidths=0.7)
    else:
        labels = np.asarray(labels)
        for i, c in enumerate(np.unique(labels)):
            m = labels == c
            mk = MARKERS[i % len(MARKERS)]
            kw = {"facecolors": "none", "edgecolors": f"C{i}"} if mk in "osD^v<>ph" else {"color": f"C{i}"}
            ax.scatter(xs[m], ys[m], s=18, marker=mk, linewidths=0.8, label=str(c), **kw)
        ax.legend(fontsize=7, loc="best", markerscale=1.0, frameon=False)
    if highlight is not None:
        ax.scatter([xs[highlight]], [ys[highlight]], s=140, facecolors="none", edgecolors="red", linewidths=1.5,
                   gid="highlight")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_lattice(means, grid, *, ax=None, title=None, data=None, limits=(0.0, 1.0)):
    """Neuron means in input space (first two features) joined to their 4 grid neighbours (Fig. 5.2).

    Examples
    --------
    >>> from pgmpy_ext.maps import nbm_unit_square
    >>> snaps = nbm_unit_square(n_steps=300, grid=(5, 5), snapshots=(300,), random_state=0)
    >>> ax = plot_lattice(snaps[300], (5, 5), title="t = 300")
    >>> len(ax.lines)
    10
    """
    ax = _axes(ax, figsize=(3.2, 3.2))
    L1, L2 = (int(g) for g in grid)
    m = np.asarray(means, dtype=float)[:, :2].reshape(L1, L2, 2)
    if data is not None:
        d = np.asarray(data, dtype=float)
        ax.scatter(d[:, 0], d[:, 1], s=2, color="0.85")
    for r in range(L1):
        ax.plot(m[r, :, 0], m[r, :, 1], color="C0", lw=0.8)
    for c in range(L2):
        ax.plot(m[:, c, 0], m[:, c, 1], color="C0", lw=0.8)
    ax.scatter(m[..., 0].ravel(), m[..., 1].ravel(), s=6, color="C3", zorder=3)
    if limits is not None:
        ax.set_xlim(limits[0] - 0.02, limits[1] + 0.02)
        ax.set_ylim(limits[0] - 0.02, limits[1] + 0.02)
    ax.set_aspect("equal")
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_posterior(proba, grid, *, ax=None, title=None, colorbar=True):
    """The posterior of one point over the grid as a heat map (Fig. 5.4(a-c)); ``proba`` is a K-vector, e.g. a row of
    ``NaiveBayesMap.predict_proba``.

    Examples
    --------
    >>> import numpy as np
    >>> ax = plot_posterior(np.full(12, 1 / 12), (3, 4))
    >>> ax.images[0].get_array().shape
    (3, 4)
    """
    ax = _axes(ax, figsize=(3.6, 3.0))
    L1, L2 = (int(g) for g in grid)
    im = ax.imshow(np.asarray(proba, dtype=float).reshape(L1, L2), origin="lower", cmap="viridis",
                   interpolation="nearest")
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xlabel("grid column", fontsize=8)
    ax.set_ylabel("grid row", fontsize=8)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_ll_trace(traces, *, ax=None, title=None, labels=None):
    """Log-likelihood per epoch, one line per run (Fig. 5.3(d)).

    Examples
    --------
    >>> ax = plot_ll_trace([[-900.0, -600.0, -550.0], [-880.0, -620.0, -560.0]])
    >>> len(ax.lines)
    2
    """
    ax = _axes(ax, figsize=(4.5, 3.2))
    traces = np.atleast_2d(np.asarray(traces, dtype=float))
    for r, tr in enumerate(traces):
        ax.plot(np.arange(1, tr.size + 1), tr, lw=1.2,
                label=labels[r] if labels is not None else f"run {r + 1}")
    ax.set_xlabel("epoch")
    ax.set_ylabel("log-likelihood")
    ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_quality(ks, values: dict, *, ax=None, title=None, ylabel="trustworthiness M1"):
    """One line per method of a measure against k (Figs. 5.5-5.14 (e), (f)); ``values`` maps method -> array.

    Examples
    --------
    >>> ax = plot_quality([5, 10], {"PCA": [0.9, 0.88], "NBM": [0.95, 0.93]})
    >>> [line.get_label() for line in ax.lines]
    ['PCA', 'NBM']
    """
    ax = _axes(ax, figsize=(4.0, 3.2))
    marks = {"PCA": "s", "SOM": "^", "GTM": "o", "NBM": "*"}
    for i, (name, v) in enumerate(values.items()):
        ax.plot(ks, v, marker=marks.get(name, MARKERS[i % len(MARKERS)]), ms=4, lw=1.0, label=name)
    ax.set_xlabel("k")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7, frameon=False)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def _map_parts(nbm):
    """(grid, means in the user's units (K, n_used), feature names of the used columns) of a fitted NaiveBayesMap."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(nbm)
    L1 = int(nbm.grid_[:, 0].max()) + 1
    L2 = int(nbm.grid_[:, 1].max()) + 1
    used = nbm.used_features_
    names = list(getattr(nbm, "feature_names_in_", [f"x{i}" for i in range(nbm.n_features_in_)]))
    means = nbm.means_ * nbm.scale_ + nbm.center_
    return (L1, L2), means, [str(names[i]) for i in used]


def plot_component_planes(nbm, features=None, *, ncols=4, cmap="viridis", title=None):
    """Component planes: one small panel per feature, the neurons' means of that feature over the grid.

    Features that vary together across the map show the same pattern; a plane that is flat is a feature the map
    does not order by. Drawn in the user's units (``means_ * scale_ + center_``), grid row 0 at the bottom as in
    :func:`plot_map` with ``grid``.

    Parameters
    ----------
    nbm : fitted NaiveBayesMap
    features : list of str or int, optional
        Column names (or positions among ``nbm.used_features_``); default the first 12 used columns.
    ncols : int, default 4
        Panels per row.

    Returns
    -------
    ndarray of Axes
        One per panel (``axes.flat[0].figure`` is the figure).

    Examples
    --------
    >>> import numpy as np
    >>> from pgmpy_ext.maps import NaiveBayesMap
    >>> X = np.random.default_rng(0).normal(size=(60, 3))
    >>> nbm = NaiveBayesMap(grid=(4, 4), n_epochs=3, random_state=0).fit(X)
    >>> axes = plot_component_planes(nbm, ["x0", "x2"])
    >>> [a.get_title() for a in axes.flat if a.images]
    ['x0', 'x2']
    """
    grid, means, names = _map_parts(nbm)
    if features is None:
        idx = list(range(min(12, len(names))))
    else:
        idx = []
        for f in features:
            if isinstance(f, str):
                if f not in names:
                    raise ValueError(f"feature {f!r} is not one of the map's columns ({names[:10]}...); constant "
                                     "columns are not on the map.")
                idx.append(names.index(f))
            else:
                idx.append(int(f))
    try:
        from matplotlib.figure import Figure
    except ImportError as err:  # pragma: no cover
        raise ImportError("plotting needs matplotlib: pip install matplotlib") from err
    ncols = max(1, min(int(ncols), len(idx)))
    nrows = -(-len(idx) // ncols)
    fig = Figure(figsize=(1.9 * ncols, 1.9 * nrows + (0.3 if title else 0.0)))
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for a in axes.flat:
        a.set_axis_off()
    for a, j in zip(axes.flat, idx):
        im = a.imshow(means[:, j].reshape(grid), origin="lower", cmap=cmap, interpolation="nearest")
        a.set_title(names[j], fontsize=8)
        a.set_axis_on()
        a.set_xticks([])
        a.set_yticks([])
        fig.colorbar(im, ax=a, fraction=0.046, pad=0.03).ax.tick_params(labelsize=6)
    if title:
        fig.suptitle(title, fontsize=9)
    return axes


def plot_neighbour_distances(nbm, *, ax=None, title=None, cmap="bone_r"):
    """U-matrix-style view: for every neuron, the mean distance (in the model's standardised units) from its means to
    those of its 4 grid neighbours. Dark ridges separate groups of neurons that model different data (cluster
    borders); light valleys are groups. The colour scale stops at the 95th percentile (an arrow on the colour bar
    when some neuron, typically a corner, lies beyond it).

    Examples
    --------
    >>> import numpy as np
    >>> from pgmpy_ext.maps import NaiveBayesMap
    >>> X = np.random.default_rng(0).normal(size=(60, 3))
    >>> ax = plot_neighbour_distances(NaiveBayesMap(grid=(4, 5), n_epochs=3, random_state=0).fit(X))
    >>> ax.images[0].get_array().shape
    (4, 5)
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(nbm)
    (L1, L2), _, _ = _map_parts(nbm)
    m = np.asarray(nbm.means_, dtype=float).reshape(L1, L2, -1)
    total = np.zeros((L1, L2))
    count = np.zeros((L1, L2))
    dr = np.linalg.norm(m[1:] - m[:-1], axis=-1)       # (L1 - 1, L2): row neighbours
    dc = np.linalg.norm(m[:, 1:] - m[:, :-1], axis=-1)  # (L1, L2 - 1): column neighbours
    total[1:] += dr
    total[:-1] += dr
    count[1:] += 1
    count[:-1] += 1
    total[:, 1:] += dc
    total[:, :-1] += dc
    count[:, 1:] += 1
    count[:, :-1] += 1
    ax = _axes(ax, figsize=(3.8, 3.2))
    u = total / count
    # the corners (2 neighbours, often few data) can dwarf the ridges inside: clip the scale at the 95th percentile
    vmax = float(np.percentile(u, 95))
    im = ax.imshow(u, origin="lower", cmap=cmap, interpolation="nearest", vmax=vmax)
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, extend="max" if u.max() > vmax else "neither",
                       label="mean distance to grid neighbours")
    ax.set_xlabel("grid column", fontsize=8)
    ax.set_ylabel("grid row", fontsize=8)
    if title:
        ax.set_title(title, fontsize=9)
    return ax
