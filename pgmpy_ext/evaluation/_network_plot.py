"""Drawing a learned Bayesian network (matplotlib only; no graphviz, pygraphviz or daft).

:func:`plot_network` draws a pgmpy network or a fitted pgmpy-ext estimator with a deterministic layout: the class
(or cluster) node on top, a class-rooted tree (TAN, FAN, SBN, ABN, cTAN, CEM-TAN/SBN) drawn as its augmenting
forest below the class, anything else in layers of topological depth ordered by a barycentre heuristic. Nodes are
sized in inches from their label, so the picture is the same whatever the data limits; with a given ``ax`` the font
is scaled down until the layout fits it.

Artists carry ``gid`` values: ``"node:<role>:<name>"`` (node patches, role ``class``, ``latent``, ``feature`` or
``isolated``), ``"label:<name>"`` (node names, placed at the node centre), ``"arc:<kind>:<u>-><v>"`` (arrows, kind
``class`` or ``augmenting``), ``"weight:<u>-><v>"`` (arc labels) and ``"caption"`` (what the arc labels are).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import networkx as nx
import numpy as np

from pgmpy_ext.utils import check_option

__all__ = ["plot_network"]

LAYOUTS = ("auto", "tree", "layered")
_CLASS_COLOR = "#f4a261"
_FEATURE_COLOR = "#dbe9f6"
_ISOLATED_COLOR = "#f2f2f2"
_LATENT_COLOR = "#ffffff"
_AUG_COLOR = "#1f4e79"
_CLASS_ARC_COLOR = "0.72"
_MAX_FIG_IN = (20.0, 20.0)


class _Panel:
    """One network to draw: ordered nodes, arcs, the highlighted node, latents, arc weights and captions."""

    def __init__(self, nodes, edges, class_node, latents, weights, note, title):
        self.nodes, self.edges, self.class_node = list(nodes), list(edges), class_node
        self.latents, self.weights, self.note, self.title = set(latents), dict(weights), note, title


# ---------------------------------------------------------------------------------------------- inputs
def _matrix_weights(edges, features, matrix, class_node) -> dict:
    """``{(u, v): matrix[i, j]}`` for the feature -> feature arcs (``features`` gives the matrix order)."""
    index = {f: i for i, f in enumerate(features)}
    matrix = np.asarray(matrix, dtype=float)
    out = {}
    for u, v in edges:
        if u != class_node and v != class_node and u in index and v in index:
            out[(u, v)] = float(matrix[index[u], index[v]])
    return out


def _structure_weights(structure, edges, class_node):
    trace = getattr(structure, "trace", None)
    features = getattr(structure, "features", None)
    if isinstance(trace, Mapping) and features is not None and trace.get("cmi") is not None:
        cmi = np.asarray(trace["cmi"])
        if cmi.shape == (len(features), len(features)):
            return (_matrix_weights(edges, features, cmi, class_node),
                    f"arc labels and widths: I(Xi; Xj | {class_node}), nats")
    return {}, None


def _network_panel(model, class_node) -> _Panel:
    nodes = list(model.nodes())
    latents = set(getattr(model, "latents", None) or ())
    if class_node is None:  # a latent root parent of every other node is the cluster node
        roots = [n for n in latents if model.in_degree(n) == 0 and set(model.successors(n)) == set(nodes) - {n}]
        if len(roots) == 1 and len(nodes) > 1:
            class_node = roots[0]
    return _Panel(nodes, model.edges(), class_node, latents, {}, None, None)


def _panels(obj, class_node) -> list[_Panel]:
    if isinstance(obj, nx.DiGraph):  # pgmpy DiscreteBayesianNetwork / DAG, or any networkx DiGraph
        return [_network_panel(obj, class_node)]
    if all(hasattr(obj, a) for a in ("class_node", "features", "parents", "edges")) and not hasattr(obj, "fit"):
        # a ClassifierStructure (the structure engines' result)
        c = obj.class_node if class_node is None else class_node
        edges = list(obj.edges())
        weights, note = _structure_weights(obj, edges, c)
        return [_Panel([obj.class_node, *obj.features], edges, c, (), weights, note, None)]
    if hasattr(obj, "fit") and hasattr(obj, "get_params"):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(obj, ("model_", "models_"), all_or_any=any,
                        msg=f"This {type(obj).__name__} instance is not fitted yet; call fit before plot_network.")
        structure = getattr(obj, "structure_", None)
        if getattr(obj, "models_", None) is not None and not hasattr(obj, "model_"):
            return _multinet_panels(obj, structure)
        node = class_node
        if node is None:
            node = getattr(obj, "class_node_", None)
        if node is None:
            node = getattr(obj, "cluster_node_", None)
        panel = _network_panel(obj.model_, node)
        if structure is not None:
            panel.weights, panel.note = _structure_weights(structure, panel.edges, panel.class_node)
        return [panel]
    raise TypeError("plot_network draws a pgmpy DiscreteBayesianNetwork (or DAG / networkx DiGraph), a "
                    "ClassifierStructure or a fitted pgmpy-ext estimator (with model_ or models_), got "
                    f"{type(obj).__name__}.")


def _ensemble_panels(obj) -> list[_Panel]:
    """One panel per voting member of an ensemble whose ``models_`` is a list (ITDT, BENCH), titled with its
    position (and its kind, e.g. FN/FC, when the ensemble records it)."""
    panels = []
    members = getattr(obj, "estimators_", None) or [None] * len(obj.models_)
    kinds = getattr(obj, "kinds_", None)
    for k, (model, member) in enumerate(zip(obj.models_, members)):
        if model is None:  # a member that is not a Bayesian network
            continue
        panel = _network_panel(model, getattr(member, "class_node_", None))
        panel.title = f"member {k}" + (f" ({kinds[k]})" if kinds is not None and k < len(kinds) else "")
        panels.append(panel)
    if not panels:
        raise ValueError(f"{type(obj).__name__} has no Bayesian-network member to draw.")
    return panels


def _multinet_panels(obj, structure) -> list[_Panel]:
    """One panel per class (CLMultinetClassifier) or per cluster (CEMClustering(model="cl")); one per voting
    member for an ensemble (``models_`` a list)."""
    if not isinstance(obj.models_, Mapping):
        return _ensemble_panels(obj)
    panels = []
    trees = getattr(structure, "trees", None)
    for k, (label, model) in enumerate(obj.models_.items()):
        panel = _network_panel(model, None)
        if hasattr(obj, "class_node_"):
            panel.title = f"{obj.class_node_} = {label}"
        else:
            weight = getattr(obj, "weights_", None)
            node = getattr(obj, "cluster_node_", "cluster")
            panel.title = f"{node} {label}" + ("" if weight is None else f" (weight {float(weight[k]):.2f})")
        if trees is not None and k < len(trees):
            panel.weights = _matrix_weights(panel.edges, structure.features, trees[k].weights, None)
            panel.note = "arc labels and widths: I(Xi; Xj) within the class, nats"
        panels.append(panel)
    return panels


def _apply_user_weights(panels, weights) -> None:
    if weights is None:
        return
    if weights is False:
        for p in panels:
            p.weights, p.note = {}, None
        return
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a dict {{(u, v): weight}}, None or False, got {type(weights).__name__}.")
    unknown = []
    for pair, w in weights.items():
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(f"weights keys must be (u, v) pairs, got {pair!r}.")
        found = False
        for p in panels:
            arcs = set(p.edges)
            for arc in (pair, pair[::-1]):
                if arc in arcs:
                    p.weights[arc] = float(w)
                    found = True
        if not found:
            unknown.append(pair)
    if unknown:
        raise ValueError(f"weights name pairs that are not arcs of the network: {unknown!r} (arcs: "
                         f"{sorted(map(tuple, panels[0].edges), key=str)[:10]!r}...).")
    for p in panels:
        p.note = "arc labels and widths: the given weights"


# ---------------------------------------------------------------------------------------------- geometry
def _text_size_in(text: str, fontsize: float, bold: bool = False) -> tuple[float, float]:
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    prop = FontProperties(size=fontsize, weight="bold" if bold else "normal")
    ext = TextPath((0, 0), text or " ", size=fontsize, prop=prop).get_extents()
    return max(ext.width, fontsize * 0.5) / 72.0, fontsize / 72.0


def _base_font(n_nodes: int) -> float:
    return 10.0 if n_nodes <= 15 else 9.0 if n_nodes <= 30 else 8.0 if n_nodes <= 60 else 7.0


def _box_sizes(panel: _Panel, font: float) -> dict:
    """Node -> (width, height) in inches at ``font``; ellipses (class, latent) are wider than the text."""
    sizes = {}
    for n in panel.nodes:
        tw, th = _text_size_in(str(n), font, bold=n == panel.class_node)
        if n == panel.class_node or n in panel.latents:
            sizes[n] = (tw * 1.35 + 0.22, th * 2.4)
        else:
            sizes[n] = (tw + 0.16, th * 1.9)
    return sizes


def _is_class_rooted_forest(panel: _Panel) -> bool:
    c = panel.class_node
    indeg = dict.fromkeys(panel.nodes, 0)
    for u, v in panel.edges:
        if v == c:
            return False
        if u != c:
            indeg[v] += 1
    return all(d <= 1 for d in indeg.values())


def _tree_layout(panel: _Panel, sizes: dict, gap: float, pitch: float, target_width: float) -> dict:
    """Class on top; the augmenting forest below it, tree by tree (nested-box tidy layout), packed in shelves."""
    c = panel.class_node
    order = {n: i for i, n in enumerate(panel.nodes)}
    feats = [n for n in panel.nodes if n != c]
    children = {n: [] for n in feats}
    has_parent = set()
    for u, v in panel.edges:
        if u != c:
            children[u].append(v)
            has_parent.add(v)
    for n in feats:
        children[n].sort(key=order.__getitem__)
    width, depth = {}, {}

    def measure(v):  # iterative post-order would be overkill: trees here have at most a few hundred nodes
        kids = children[v]
        for k in kids:
            measure(k)
        inner = sum(width[k] for k in kids) + gap * max(len(kids) - 1, 0)
        width[v] = max(sizes[v][0], inner)
        depth[v] = 1 + max((depth[k] for k in kids), default=0)

    roots = [n for n in feats if n not in has_parent]
    for r in roots:
        measure(r)

    blocks = sorted(roots, key=lambda r: (children[r] == [], -depth[r] if children[r] else 0, order[r]))
    # shelves: blocks left to right until the target width, then a new shelf below the deepest block
    shelves, current, used = [], [], 0.0
    for r in blocks:
        w = width[r]
        if current and used + gap + w > target_width:
            shelves.append(current)
            current, used = [], 0.0
        used += (gap if current else 0.0) + w
        current.append(r)
    if current:
        shelves.append(current)
    pos = {}
    top = 0.0 if c is None else -pitch
    for shelf in shelves:
        total = sum(width[r] for r in shelf) + gap * (len(shelf) - 1)
        left = -total / 2

        def place(v, left_edge, y):
            pos[v] = (left_edge + width[v] / 2, y)
            kids = children[v]
            inner = sum(width[k] for k in kids) + gap * max(len(kids) - 1, 0)
            x = left_edge + (width[v] - inner) / 2
            for k in kids:
                place(k, x, y - pitch)
                x += width[k] + gap

        for r in shelf:
            place(r, left, top)
            left += width[r] + gap
        top -= pitch * max(depth[r] for r in shelf)
    if c is not None:
        pos[c] = (0.0, 0.0)
    return pos


def _layered_layout(panel: _Panel, sizes: dict, gap: float, pitch: float, target_width: float) -> dict:
    """Layers of topological depth (class alone on top), barycentre ordering, long layers wrapped in rows."""
    c = panel.class_node
    order = {n: i for i, n in enumerate(panel.nodes)}
    g = nx.DiGraph()
    g.add_nodes_from(panel.nodes)
    g.add_edges_from((u, v) for u, v in panel.edges if u != c and v != c)
    layer = {}
    for n in nx.lexicographical_topological_sort(g, key=order.__getitem__):
        layer[n] = max((layer[p] + 1 for p in g.predecessors(n)), default=0)
    if c is not None:
        layer = {n: d + 1 for n, d in layer.items()}
        layer[c] = 0
    n_layers = max(layer.values()) + 1
    layers = [[n for n in panel.nodes if layer[n] == k] for k in range(n_layers)]
    rank = {n: (i + 0.5) / len(lay) for lay in layers for i, n in enumerate(lay)}

    def sweep(indices, neighbours):
        for k in indices:
            lay = layers[k]
            keys = {}
            for n in lay:
                nb = [rank[m] for m in neighbours(n)]
                keys[n] = sum(nb) / len(nb) if nb else rank[n]
            lay.sort(key=lambda n: (keys[n], rank[n], order[n]))
            for i, n in enumerate(lay):
                rank[n] = (i + 0.5) / len(lay)

    for _ in range(4):
        sweep(range(1, n_layers), g.predecessors)
        sweep(range(n_layers - 2, -1, -1), g.successors)
    pos, y = {}, 0.0
    for lay in layers:
        rows, current, used = [], [], 0.0
        for n in lay:
            w = sizes[n][0]
            if current and used + gap + w > target_width:
                rows.append(current)
                current, used = [], 0.0
            used += (gap if current else 0.0) + w
            current.append(n)
        rows.append(current)
        for i, row in enumerate(rows):
            total = sum(sizes[n][0] for n in row) + gap * (len(row) - 1)
            x = -total / 2
            # wrapped rows of one layer are offset by half a slot so that arcs pass between their nodes
            x += 0.0 if i % 2 == 0 else gap / 2
            for n in row:
                pos[n] = (x + sizes[n][0] / 2, y)
                x += sizes[n][0] + gap
            y -= pitch if i == len(rows) - 1 else pitch * 0.75
    return pos


def _border_t(dx: float, dy: float, size: tuple, ellipse: bool) -> float:
    """Fraction of the centre-to-centre vector (dx, dy) inside a node of ``size`` (width, height)."""
    a, b = size[0] / 2, size[1] / 2
    if ellipse:
        q = (dx / a) ** 2 + (dy / b) ** 2
        return 1.0 / math.sqrt(q) if q > 0 else 0.0
    tx = a / abs(dx) if dx else math.inf
    ty = b / abs(dy) if dy else math.inf
    return min(tx, ty, 1.0)


def _format_weight(fmt: str, w: float) -> str:
    return fmt.format(w)


# ---------------------------------------------------------------------------------------------- drawing
def _layout_panel(panel, layout, font):
    sizes = _box_sizes(panel, font)
    gap = 0.22 * font / 9.0 + 0.08
    pitch = max(h for _, h in sizes.values()) + 0.45 * font / 9.0 + 0.12
    target = max(10.0, max(w for w, _ in sizes.values()) * 2)
    use = layout
    if layout == "auto":
        aug = [e for e in panel.edges if panel.class_node not in e]
        use = "tree" if aug and _is_class_rooted_forest(panel) else "layered"
    if use == "tree":
        if not _is_class_rooted_forest(panel):
            raise ValueError("layout='tree' needs a forest below the class node (each feature with at most one "
                             "parent besides the class, and no arc into the class); use layout='layered' or "
                             "'auto'.")
        pos = _tree_layout(panel, sizes, gap, pitch, target)
    else:
        pos = _layered_layout(panel, sizes, gap, pitch, target)
    xs = [pos[n][0] - sizes[n][0] / 2 for n in panel.nodes] + [pos[n][0] + sizes[n][0] / 2 for n in panel.nodes]
    ys = [pos[n][1] - sizes[n][1] / 2 for n in panel.nodes] + [pos[n][1] + sizes[n][1] / 2 for n in panel.nodes]
    margin = 0.12
    bottom = 0.3 if panel.note else 0.0
    extent = (min(xs) - margin, max(xs) + margin, min(ys) - margin - bottom, max(ys) + margin)
    return pos, sizes, extent, use


def _draw_panel(ax, panel, pos, sizes, extent, font, scale, edge_labels, class_arcs):
    from matplotlib.patches import Ellipse, FancyArrowPatch, FancyBboxPatch

    c = panel.class_node
    neighbours = {n for e in panel.edges for n in e}
    ys = sorted({round(p[1], 9) for p in pos.values()})
    row_pitch = min((b - a for a, b in zip(ys, ys[1:])), default=1.0)
    patches = {}
    for n in panel.nodes:
        x, y = pos[n]
        w, h = sizes[n]
        latent = n in panel.latents
        if n == c:
            role, face = "class", _CLASS_COLOR
        elif latent:
            role, face = "latent", _LATENT_COLOR
        elif c is not None and n not in neighbours:
            role, face = "isolated", _ISOLATED_COLOR
        else:
            role, face = "feature", _FEATURE_COLOR
        style = {"facecolor": face, "edgecolor": "0.15", "linewidth": 1.6 if n == c else 1.0,
                     "linestyle": "--" if latent else "-", "zorder": 3, "gid": f"node:{role}:{n}"}
        if n == c or latent:
            patch = Ellipse((x, y), w, h, **style)
        else:
            patch = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle=f"round,pad=0,rounding_size={h * 0.3}",
                                   **style)
        ax.add_patch(patch)
        patches[n] = patch
        ax.text(x, y, str(n), ha="center", va="center", fontsize=font * scale, zorder=4, gid=f"label:{n}",
                fontweight="bold" if n == c else "normal", color="0.45" if role == "isolated" else "black")
    weights = panel.weights
    wmax = max((abs(w) for w in weights.values()), default=0.0)
    for u, v in panel.edges:
        is_class = u == c
        if is_class and not class_arcs:
            continue
        w = weights.get((u, v))
        if is_class:
            color, lw, kind, z = _CLASS_ARC_COLOR, 0.8, "class", 1
        else:
            lw = 1.4 if w is None or wmax == 0 else 1.0 + 3.0 * abs(w) / wmax
            color, kind, z = _AUG_COLOR, "augmenting", 2
        # an arc that skips a row bends (away from the straight line through the rows between) so that it does not
        # run along the arcs and nodes it spans
        skip = not is_class and abs(pos[u][1] - pos[v][1]) > 1.5 * row_pitch
        rad = (0.25 if pos[v][0] >= pos[u][0] else -0.25) if skip else 0.0
        end = pos[v]
        if is_class:  # aim off the centre, towards the class, so a class arc does not end on an augmenting arc's head
            side = -1.0 if pos[v][0] > pos[u][0] + 1e-9 else 1.0
            end = (pos[v][0] + side * 0.3 * sizes[v][0], pos[v][1])
        arrow = FancyArrowPatch(pos[u], end, arrowstyle="-|>", connectionstyle=f"arc3,rad={rad}",
                                mutation_scale=(9 + lw * 2) * scale,
                                linewidth=lw * scale, color=color, patchA=patches[u], patchB=patches[v],
                                shrinkA=0, shrinkB=1, zorder=z, gid=f"arc:{kind}:{u}->{v}")
        ax.add_patch(arrow)
        if w is not None and edge_labels:
            (x0, y0), (x1, y1) = pos[u], pos[v]
            dx, dy = x1 - x0, y1 - y0
            ta = _border_t(dx, dy, sizes[u], u == c or u in panel.latents)
            tb = 1.0 - _border_t(dx, dy, sizes[v], v == c or v in panel.latents)
            t = ta + 0.55 * (tb - ta)
            # on a bent arc, the label sits on the curve (a quadratic Bezier: half the control offset)
            lx, ly = x0 + t * dx + rad * dy * 0.5, y0 + t * dy - rad * dx * 0.5
            ax.text(lx, ly, _format_weight(edge_labels, w), ha="center", va="center",
                    fontsize=font * 0.78 * scale, color=_AUG_COLOR, zorder=5, gid=f"weight:{u}->{v}",
                    bbox={"boxstyle": "round,pad=0.12", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    if panel.note and weights:
        note = panel.note if edge_labels else panel.note.replace("arc labels and widths", "arc widths")
        ax.text(0.5, 0.0, note, transform=ax.transAxes, ha="center", va="bottom", fontsize=font * 0.8 * scale,
                color="0.3", gid="caption")
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_aspect("equal", adjustable="box")
    ax.set_anchor("N")
    ax.axis("off")


def _axes_inches(ax) -> tuple[float, float]:
    box = ax.get_position()
    fw, fh = ax.figure.get_size_inches()
    return box.width * fw, box.height * fh


def plot_network(model_or_estimator, *, ax=None, class_node=None, weights=None, layout: str = "auto",
                 edge_labels: bool | str | None = None, class_arcs: bool = True, title: str | None = None,
                 font_size: float | None = None):
    """Draw a Bayesian network, a classifier's or a clustering's learned structure, with matplotlib only.

    The class (or cluster) node is an orange ellipse on top; latent nodes (pgmpy's ``model.latents``, e.g. CEM's
    cluster) have a dashed outline; class arcs (class -> feature) are thin and light grey, augmenting arcs (feature
    -> feature) dark blue, their width and label given by the arc's (conditional) mutual information when the
    learner keeps it (``structure_.trace["cmi"]`` of TAN, FAN, SBN, ABN, cTAN and kDB; the per-class MI of the
    CL multinet) or by ``weights``. The layout is deterministic (same input, same picture). With ``layout="auto"``
    a class-rooted forest (every feature with at most one parent besides the class: TAN-like) is drawn as its
    augmenting trees below the class, children in node order, trees packed left to right in shelves; any other
    network in layers of topological depth (class alone on top), nodes within a layer ordered by a barycentre
    heuristic and long layers wrapped. Node boxes are sized from their labels; the font shrinks with the number of
    nodes and, when ``ax`` is given, until the layout fits the axes.

    Parameters
    ----------
    model_or_estimator : DiscreteBayesianNetwork, DAG, networkx.DiGraph, ClassifierStructure or fitted estimator
        A pgmpy network (any), a structure engine's result, or a fitted pgmpy-ext estimator: a classifier
        (``model_``, ``class_node_``, ``structure_``), :class:`~pgmpy_ext.classifiers.CLMultinetClassifier` or
        :class:`~pgmpy_ext.clustering.CEMClustering` (``model_`` with the latent cluster node, or ``models_`` for
        ``model="cl"``). A multinet (``models_``) is drawn as one panel per class or cluster, an ensemble of networks
        (``ITDTEnsembleClassifier``, ``BENCHClassifier``: ``models_`` a list) as one panel per voting member.
    ax : matplotlib Axes, or a sequence of Axes for a multinet, optional
        Where to draw. Without it a new ``matplotlib.figure.Figure`` is made (no pyplot; save it with
        ``ax.figure.savefig(path)``), sized to the layout (at most 20 x 20 inches).
    class_node : label, optional
        The node to highlight and put on top. Default: the estimator's ``class_node_`` / ``cluster_node_``; for a
        plain network, a latent root that is the parent of every other node (a latent cluster), else none.
    weights : dict {(u, v): float}, False or None
        Arc weights (either orientation of an arc); they replace the learner's. ``False`` drops the learner's
        weights. A pair that is not an arc is an error.
    layout : {"auto", "tree", "layered"}, default "auto"
    edge_labels : bool or str, optional
        Write the weight on each weighted arc: a format string (e.g. ``"{:.2f}"``), ``True`` for ``"{:.3f}"``,
        ``False`` for widths only. Default: labels when at most 40 arcs are weighted.
    class_arcs : bool, default True
        Draw the class -> feature arcs (hide them for a large network whose every feature has the class as parent).
    title : str, optional
        Axes title; for a multinet with ``ax=None`` the figure's title above the per-class panels.
    font_size : float, optional
        Node label size in points before any fitting (default 10 down to 7 as the network grows).

    Returns
    -------
    matplotlib Axes, or a numpy array of Axes (one per class or cluster) for a multinet
        The panels' titles are ``"<class> = <label>"`` (classifier) or ``"cluster <k> (weight w)"`` (CEM).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.classifiers import TANClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = pd.Series(rng.integers(0, 2, 300), name="C")
    >>> X = pd.DataFrame({"A": y ^ (rng.random(300) < 0.2)})
    >>> X["B"] = X["A"] ^ (rng.random(300) < 0.1)
    >>> X["D"] = y ^ (rng.random(300) < 0.3)
    >>> ax = plot_network(TANClassifier().fit(X, y))
    >>> sorted(p.get_gid() for p in ax.patches if p.get_gid().startswith("node:"))
    ['node:class:C', 'node:feature:A', 'node:feature:B', 'node:feature:D']
    >>> sorted(t.get_gid() for t in ax.texts if t.get_gid().startswith("weight:"))
    ['weight:A->B', 'weight:B->D']
    """
    check_option(layout, "layout", LAYOUTS)
    if edge_labels is not None and not isinstance(edge_labels, (bool, str)):
        raise TypeError(f"edge_labels must be None, a bool or a format string like '{{:.3f}}', got "
                        f"{type(edge_labels).__name__}.")
    if isinstance(edge_labels, str) and "{" not in edge_labels:
        raise ValueError(f"edge_labels == {edge_labels!r} is not a format string; use e.g. '{{:.3f}}'.")
    panels = _panels(model_or_estimator, class_node)
    for p in panels:
        if not p.nodes:
            raise ValueError("the network has no nodes; there is nothing to draw.")
        if p.class_node is not None and p.class_node not in p.nodes:
            raise ValueError(f"class_node {p.class_node!r} is not a node of the network (nodes: {p.nodes[:10]!r}).")
    _apply_user_weights(panels, weights)
    n_weighted = max(len(p.weights) for p in panels)
    font = float(font_size) if font_size is not None else _base_font(max(len(p.nodes) for p in panels))
    layouts = [_layout_panel(p, layout, font) for p in panels]
    if edge_labels is None:  # labels read well on trees; on a layered network the widths say it
        edge_labels = n_weighted <= 40 and all(u == "tree" for *_, u in layouts)
    if edge_labels is True:
        edge_labels = "{:.3f}"
    multi = len(panels) > 1
    sizes_in = [(e[1] - e[0], e[3] - e[2]) for _, _, e, _ in layouts]
    if ax is None:
        from matplotlib.figure import Figure

        head = 0.45 if (title or multi) else 0.0
        w_need = sum(s[0] for s in sizes_in) + 0.3 * (len(panels) - 1)
        h_need = max(s[1] for s in sizes_in) + head + (0.35 if multi else 0.0)
        fw = min(max(w_need, 3.0), _MAX_FIG_IN[0])
        fh = min(max(h_need, 2.0), _MAX_FIG_IN[1])
        fig = Figure(figsize=(fw, fh))
        axes = []
        top = max(1.0 - (head + (0.35 if multi else 0.0)) / fh, 0.3)
        x = 0.0
        for s in sizes_in:
            axes.append(fig.add_axes((x / w_need, 0.0, s[0] / w_need, top)))
            x += s[0] + 0.3
        if multi and title:
            fig.suptitle(title)
    else:
        axes = list(np.ravel(np.asarray(ax, dtype=object))) if isinstance(ax, (Sequence, np.ndarray)) else [ax]
        if len(axes) != len(panels):
            raise ValueError(f"this network is drawn as {len(panels)} panels (one per class or cluster) but ax has "
                             f"{len(axes)} Axes; pass a sequence of {len(panels)} Axes or ax=None.")
    for a, panel, (pos, sizes, extent, _), s in zip(axes, panels, layouts, sizes_in):
        aw, ah = _axes_inches(a)
        scale = min(aw / s[0], ah / s[1], 1.0)
        _draw_panel(a, panel, pos, sizes, extent, font, scale, edge_labels, class_arcs)
        if panel.title:
            a.set_title(panel.title, fontsize=max(font * scale + 1, 7))
        elif title and not multi:
            a.set_title(title)
    if multi:
        return np.array(axes, dtype=object)
    return axes[0]
