"""``log p(H=h, x_observed)`` of a compiled network with missing cells summed out exactly, for any structure.

Rows without a missing cell go through the complete-data kernel (:func:`pgmpy_ext.stats.log_joint_batch`,
bit-identical). Rows with a missing cell (code ``-1``: a missing value, or with ``handle_unknown="ignore"`` a state
unseen at fit) go through the forest pass of :func:`pgmpy_ext.stats.log_joint_marginal` when every feature node
has at most one feature parent besides ``H`` (NB, TAN, FAN, SBN, ABN), and otherwise (kDB with ``k >= 2``, BAN)
through :func:`variable_elimination_log_joint`: exact variable elimination on the CPT arrays, run once per
*missingness pattern* (the set of missing columns) for all rows that share it, vectorised over those rows.

Both equal pgmpy's ``VariableElimination`` with the missing features left out of the evidence.
"""

from __future__ import annotations

import numpy as np

from pgmpy_ext.stats import (
    HIDDEN,
    ForestPlan,
    NetworkLayout,
    forest_plan,
    log_joint_batch,
    log_joint_marginal,
    rows_with_missing,
)
from pgmpy_ext.utils.validation import check_option

__all__ = ["marginal_log_joint", "variable_elimination_log_joint"]

_LETTERS = "abcdefghijklmopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # 'n' is the row axis


def _used_columns(layout: NetworkLayout) -> np.ndarray:
    return np.unique(layout.fam_cols[layout.fam_cols != HIDDEN]).astype(np.intp)


def _check_codes(layout: NetworkLayout, codes: np.ndarray, rows: np.ndarray) -> None:
    for v in range(layout.n_nodes):
        for j in range(int(layout.fam_offsets[v]), int(layout.fam_offsets[v + 1])):
            c = int(layout.fam_cols[j])
            if c == HIDDEN:
                continue
            col = codes[rows, c]
            bad = np.flatnonzero(col >= layout.fam_cards[j])
            if bad.size:
                r = int(rows[bad[0]])
                raise ValueError(f"row {r}: code {int(codes[r, c])} of {layout.columns[c]!r} is outside "
                                 f"0..{int(layout.fam_cards[j]) - 1} (family of {layout.nodes[v]!r}).")


def _eliminate(factors: list, var: int, cards: dict) -> tuple:
    """Sum ``var`` out of the product of the (log-space) factors that contain it; returns the new log factor."""
    involved = [f for f in factors if var in f[0]]
    union = []
    for vs, _ in involved:
        union.extend(u for u in vs if u not in union)
    if len(union) > len(_LETTERS):
        raise ValueError(f"variable elimination needs a factor over {len(union)} variables; this network is too "
                         "densely connected for exact marginalisation of this missingness pattern.")
    letter = {u: _LETTERS[i] for i, u in enumerate(union)}
    keep = tuple(u for u in union if u != var)
    ops, subs, shift = [], [], 0.0
    for vs, a in involved:
        m = a.reshape(a.shape[0], -1).max(axis=1) if a.ndim > 1 else a
        m = np.where(np.isfinite(m), m, 0.0)
        ops.append(np.exp(a - m.reshape((-1,) + (1,) * (a.ndim - 1))))
        subs.append("n" + "".join(letter[u] for u in vs))
        shift = shift + m
    spec = ",".join(subs) + "->n" + "".join(letter[u] for u in keep)
    with np.errstate(divide="ignore"):
        res = np.log(np.einsum(spec, *ops, optimize=len(ops) > 2))
    res += np.reshape(shift, (-1,) + (1,) * len(keep))
    return keep, res


def variable_elimination_log_joint(layout: NetworkLayout, log_cpt, codes, rows=None) -> np.ndarray:
    """Exact ``log p(H=h, x_observed)`` of ``rows`` of ``codes`` (default: all) by variable elimination.

    Per missingness pattern, every CPT block is indexed at the observed codes of the rows (one numpy gather), the
    blocks without a missing variable are added in log space, and the missing variables are summed out one at a
    time (smallest resulting factor first) with ``einsum`` over max-shifted exponentials, so no product
    underflows. Works for any structure; the cost grows with the largest factor an elimination creates.

    Parameters
    ----------
    layout : NetworkLayout
    log_cpt : float64 (layout.size,)
    codes : int32 (n_rows, n_cols)
        ``-1`` = missing.
    rows : int array, optional
        The rows to evaluate.

    Returns
    -------
    float64 (len(rows), K)

    Examples
    --------
    >>> import numpy as np
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["A", "C"]}, {"C": 2, "A": 2, "B": 2}, ["A", "B"], "C")
    >>> log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[0.9, 0.2], [0.1, 0.8]],
    ...                     "B": [[[0.7, 0.4], [0.5, 0.1]], [[0.3, 0.6], [0.5, 0.9]]]}, log=True)
    >>> np.exp(variable_elimination_log_joint(lay, log_cpt, np.array([[-1, 0]]))).round(4).tolist()
    [[0.34, 0.08]]
    """
    codes = layout.codes_of(codes)
    lc = np.ascontiguousarray(log_cpt, dtype=np.float64)
    if lc.shape != (layout.size,):
        raise ValueError(f"log_cpt has shape {lc.shape}, expected ({layout.size},).")
    rows = np.arange(codes.shape[0], dtype=np.intp) if rows is None else np.asarray(rows, dtype=np.intp)
    K = layout.hidden_card
    out = np.empty((rows.shape[0], K), dtype=np.float64)
    if rows.shape[0] == 0:
        return out
    _check_codes(layout, codes, rows)
    used = _used_columns(layout)
    cards = {int(c): int(k) for c, k in zip(layout.fam_cols, layout.fam_cards)}
    cards[HIDDEN] = K
    blocks = [lc[layout.tab_offsets[v]:layout.tab_offsets[v + 1]].reshape(
        [int(c) for c in layout.fam_cards[layout.fam_offsets[v]:layout.fam_offsets[v + 1]]])
        for v in range(layout.n_nodes)]
    fams = [[int(c) for c in layout.fam_cols[layout.fam_offsets[v]:layout.fam_offsets[v + 1]]]
            for v in range(layout.n_nodes)]
    sub_codes = codes[rows][:, used] if used.size else np.zeros((rows.shape[0], 0), dtype=np.int32)
    patterns, inverse = np.unique(sub_codes < 0, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    for p, pattern in enumerate(patterns):
        sel = np.flatnonzero(inverse == p)
        missing = {int(c) for c in used[pattern]}
        scopes = [tuple(c for c in fam if c == HIDDEN or c in missing) for fam in fams]
        peak = _elimination_peak([vs for vs in scopes if any(v != HIDDEN for v in vs)], cards)
        per_row = 8 * max(peak, K)
        if per_row > MAX_ELIMINATION_BYTES:
            raise ValueError(_elimination_message(layout, missing, peak, rows[sel[0]]))
        # the rows of one pattern go through the elimination together, in chunks that keep every step's operands
        # and result under MAX_ELIMINATION_BYTES (the row axis is independent: the same numbers for any chunking)
        step = max(1, MAX_ELIMINATION_BYTES // per_row)
        for c0 in range(0, sel.shape[0], step):
            part = sel[c0:c0 + step]
            out[part] = _pattern_log_joint(rows[part], codes, fams, blocks, missing, cards, K)
    return out


#: Most bytes one step of the exact elimination may hold (the operands and the result of one ``einsum``, for all
#: rows processed together). The rows of a missingness pattern are processed in chunks that stay under it; a
#: pattern that needs more than this for a single row is refused with a ValueError naming the columns (before,
#: one such pattern asked a 77-row microarray K2 network for 206 GiB). Raise it
#: (``pgmpy_ext.models._marginal.MAX_ELIMINATION_BYTES = ...``) on a machine that has the memory.
MAX_ELIMINATION_BYTES = 1 << 30


def _pattern_log_joint(r, codes, fams, blocks, missing, cards, K) -> np.ndarray:
    """``log p(H=h, x_observed)`` of the rows ``r``, which share the missing columns ``missing``."""
    n = r.shape[0]
    total = np.zeros((n, K), dtype=np.float64)
    factors = []
    for fam, block in zip(fams, blocks):
        obs = [a for a, c in enumerate(fam) if c != HIDDEN and c not in missing]
        rest = [a for a, c in enumerate(fam) if c == HIDDEN or c in missing]
        t = np.transpose(block, obs + rest)
        if obs:
            f = t[tuple(codes[r, fam[a]] for a in obs)]
        else:
            f = np.broadcast_to(t, (n,) + t.shape)
        vs = tuple(fam[a] for a in rest)
        if all(v == HIDDEN for v in vs):
            total += f.reshape(n, -1) if vs else f[:, None]
        else:
            factors.append((vs, f))
    for vs, f in _eliminate_all(factors, cards):
        total += f.reshape(n, -1) if vs else f[:, None]
    return total


def _elimination_peak(scopes: list, cards: dict) -> int:
    """Cells per row of the largest step of :func:`_eliminate_all` on factors with these scopes: the union of the
    scopes of the factors one elimination multiplies, times the number of arrays that step holds (its operands
    and its result), with the same greedy order, on scopes only (no numbers are computed)."""
    live = dict(enumerate(scopes))
    by_var: dict = {}
    for fid, vs in live.items():
        for u in vs:
            by_var.setdefault(u, set()).add(fid)
    next_id = len(live)

    def size(vars_) -> int:
        out = 1
        for x in vars_:
            out *= int(cards[x])
        return out

    def cost(var):
        return size(set().union(*(live[f] for f in by_var[var])) - {var})

    peak = max((size(vs) for vs in scopes), default=1)
    costs = {v: cost(v) for v in by_var if v != HIDDEN}
    while costs:
        var = min(costs, key=lambda v: (costs[v], v))
        ids = sorted(by_var.pop(var))
        union = set().union(*(live[f] for f in ids))
        keep = tuple(u for u in union if u != var)
        peak = max(peak, size(union) * (len(ids) + 1))
        touched = set()
        for f in ids:
            for u in live.pop(f):
                if u != var:
                    by_var[u].discard(f)
                    touched.add(u)
        live[next_id] = keep
        for u in keep:
            by_var[u].add(next_id)
        next_id += 1
        del costs[var]
        for u in touched - {HIDDEN}:
            costs[u] = cost(u)
    return peak


def _elimination_message(layout: NetworkLayout, missing: set, peak: int, row: int) -> str:
    names = [layout.columns[c] for c in sorted(missing)]
    shown = ", ".join(repr(c) for c in names[:8]) + (f", ... ({len(names)} columns)" if len(names) > 8 else "")
    return (f"row {row}: summing out its missing or unseen cells ({shown}) exactly needs a factor of {peak:,} "
            f"cells ({peak * 8 / 2**30:.1f} GiB for this one row) in this network, more than "
            f"pgmpy_ext.models._marginal.MAX_ELIMINATION_BYTES = {MAX_ELIMINATION_BYTES / 2**30:.1f} GiB; it is "
            "refused before allocating. Such cells are usually values the model never saw (a column that arrived "
            "in another type, see the UnseenValuesWarning) or many missing cells in a densely connected network: "
            "fix the column's type, impute the cells, use a sparser structure (fewer parents, or a one-dependence "
            "learner such as TAN, which sums cells out in linear time), or raise MAX_ELIMINATION_BYTES.")


def _eliminate_all(factors: list, cards: dict) -> list:
    """Sum every variable except ``HIDDEN`` out of the log factors; greedy order (smallest new factor first, ties
    by variable), with a variable -> factors index so that each step touches only the neighbours."""
    live = dict(enumerate(factors))
    by_var: dict = {}
    for fid, (vs, _) in live.items():
        for u in vs:
            by_var.setdefault(u, set()).add(fid)
    next_id = len(live)

    def cost(var):
        u = set().union(*(live[f][0] for f in by_var[var])) - {var}
        return int(np.prod([cards[x] for x in u]))

    costs = {v: cost(v) for v in by_var if v != HIDDEN}
    while costs:
        var = min(costs, key=lambda v: (costs[v], v))
        ids = sorted(by_var.pop(var))
        keep, res = _eliminate([live[f] for f in ids], var, cards)
        touched = set()
        for f in ids:
            for u in live.pop(f)[0]:
                if u != var:
                    by_var[u].discard(f)
                    touched.add(u)
        live[next_id] = (keep, res)
        for u in keep:
            by_var[u].add(next_id)
        next_id += 1
        del costs[var]
        for u in touched - {HIDDEN}:
            costs[u] = cost(u)
    return list(live.values())


def marginal_log_joint(layout: NetworkLayout, log_cpt, codes, *, plan: ForestPlan | None = None,
                       method: str = "auto", n_jobs: int = 1) -> np.ndarray:
    """``log p(H=h, x_observed)`` of every row of ``codes``, missing cells (``-1``) summed out exactly.

    Parameters
    ----------
    layout : NetworkLayout
    log_cpt : float64 (layout.size,)
    codes : int32 (n_rows, n_cols) or EncodedData
    plan : ForestPlan, optional
        ``pgmpy_ext.stats.forest_plan(layout)`` when the caller keeps it.
    method : {"auto", "forest", "ve"}, default "auto"
        "auto": the forest kernel for one-dependence networks, variable elimination otherwise; "forest" and "ve"
        force one (tests compare them).
    n_jobs : int, default 1

    Returns
    -------
    float64 (n_rows, K). Rows without a missing cell are bit-identical to :func:`pgmpy_ext.stats.log_joint_batch`.

    Examples
    --------
    >>> import numpy as np
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["C"], "D": ["A", "B", "C"]},
    ...                           {"C": 2, "A": 2, "B": 2, "D": 2}, ["A", "B", "D"], "C")
    >>> log_cpt = np.log(lay.normalize(np.arange(1.0, lay.size + 1)))
    >>> lj = marginal_log_joint(lay, log_cpt, np.array([[-1, -1, -1]]))   # nothing observed: log P(C)
    >>> np.exp(lj).round(4).tolist()
    [[0.3333, 0.6667]]
    """
    check_option(method, "method", ("auto", "forest", "ve"))
    codes = layout.codes_of(codes)
    rows = rows_with_missing(codes, _used_columns(layout))
    if rows.size == 0:
        return log_joint_batch(layout, log_cpt, codes, n_jobs=n_jobs)
    if method != "ve":
        plan = forest_plan(layout) if plan is None else plan
        if plan is not None or method == "forest":
            return log_joint_marginal(layout, log_cpt, codes, plan=plan, n_jobs=n_jobs)
    out = np.empty((codes.shape[0], layout.hidden_card), dtype=np.float64)
    complete = np.ones(codes.shape[0], dtype=bool)
    complete[rows] = False
    if complete.any():
        out[complete] = log_joint_batch(layout, log_cpt, np.ascontiguousarray(codes[complete]), n_jobs=n_jobs)
    out[rows] = variable_elimination_log_joint(layout, log_cpt, codes, rows)
    return out
