"""Microarray-like data with planted biclusters (seed 004 spec section 10, generator 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pgmpy_ext.utils import check_generator

__all__ = ["make_planted_biclusters"]


def make_planted_biclusters(n_pos: int = 40, n_neg: int = 25, n_genes: int = 500, *, n_biclusters=(2, 2, 2),
                            bicluster_rows=(10, 15), bicluster_cols=(50, 100), shift: float = 2.0,
                            purity: float = 0.9, n_de_genes: int = 0, de_shift: float = 1.0,
                            random_state=None):
    r"""Gene-expression-like data with planted positive, negative and mixed biclusters.

    The synthetic substitute of ``docs/decisions/seed004-bench-itdt.md`` section 10 (generator 2) for BENCH and
    SAMBA tests: every cell is N(0, 1); each planted bicluster adds ``shift`` (in standard deviations) to its
    cells. A *positive* bicluster draws ``ceil(purity * rows)`` of its samples from the positive class and the rest
    from the negative one, a *negative* bicluster the reverse, a *mixed* one half from each class. Optionally
    ``n_de_genes`` globally differentially expressed genes get ``+de_shift`` in positive and ``-de_shift`` in
    negative samples. Planted gene sets are disjoint (drawn from one permutation of the genes) and never contain a
    differentially expressed gene; sample sets are drawn independently (they may overlap).

    Parameters
    ----------
    n_pos, n_neg : int, default 40 and 25
        Samples of the positive (label 1) and negative (label 0) class; positives come first.
    n_genes : int, default 500
        Columns ``g0, g1, ...``.
    n_biclusters : (int, int, int), default (2, 2, 2)
        Number of positive, negative and mixed biclusters.
    bicluster_rows, bicluster_cols : (int, int)
        Inclusive ranges of the number of samples and genes of each bicluster (drawn uniformly).
    shift : float, default 2.0
        Added to every cell of a bicluster.
    purity : float, default 0.9
        Fraction of a homogeneous bicluster's samples taken from its class (in [0.5, 1]).
    n_de_genes : int, default 0
        Globally differentially expressed genes (not in any bicluster).
    de_shift : float, default 1.0
        Their class shift.
    random_state : None, int or numpy Generator

    Returns
    -------
    X : pandas.DataFrame (n_pos + n_neg, n_genes) of float64
    y : pandas.Series named ``"class"`` of int (1 positive, 0 negative)
    biclusters : list of dict
        One per planted bicluster: ``"rows"`` and ``"cols"`` (sorted int arrays of positions) and ``"kind"``
        (``"+"``, ``"-"`` or ``"mixed"``).

    Examples
    --------
    >>> X, y, planted = make_planted_biclusters(n_genes=600, random_state=0)
    >>> X.shape, int(y.sum()), [b["kind"] for b in planted]
    ((65, 600), 40, ['+', '+', '-', '-', 'mixed', 'mixed'])
    """
    rng = check_generator(random_state)
    if not 0.5 <= purity <= 1.0:
        raise ValueError(f"purity == {purity}, must be in [0.5, 1].")
    n_rows = n_pos + n_neg
    kinds = ["+"] * n_biclusters[0] + ["-"] * n_biclusters[1] + ["mixed"] * n_biclusters[2]
    sizes_c = rng.integers(bicluster_cols[0], bicluster_cols[1] + 1, size=len(kinds))
    if sizes_c.sum() + n_de_genes > n_genes:
        raise ValueError(f"the planted biclusters need {int(sizes_c.sum())} genes and n_de_genes {n_de_genes}, "
                         f"more than n_genes = {n_genes}; raise n_genes or lower bicluster_cols.")
    X = rng.standard_normal((n_rows, n_genes))
    y = np.r_[np.ones(n_pos, dtype=int), np.zeros(n_neg, dtype=int)]
    pos, neg = np.arange(n_pos), np.arange(n_pos, n_rows)
    genes = rng.permutation(n_genes)
    start = 0
    planted = []
    for kind, n_c in zip(kinds, sizes_c):
        n_r = int(rng.integers(bicluster_rows[0], bicluster_rows[1] + 1))
        if kind == "mixed":
            n_a = n_r // 2
        else:
            n_a = int(np.ceil(purity * n_r))
        main, other = (pos, neg) if kind != "-" else (neg, pos)
        if n_a > main.size or n_r - n_a > other.size:
            raise ValueError(f"a bicluster of {n_r} rows does not fit in {n_pos} positive and {n_neg} negative "
                             "samples; lower bicluster_rows.")
        rows = np.sort(np.r_[rng.choice(main, n_a, replace=False), rng.choice(other, n_r - n_a, replace=False)])
        cols = np.sort(genes[start:start + n_c])
        start += n_c
        X[np.ix_(rows, cols)] += shift
        planted.append({"rows": rows, "cols": cols, "kind": kind})
    if n_de_genes:
        de = genes[start:start + n_de_genes]
        X[:, de] += np.where(y[:, None] == 1, de_shift, -de_shift)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(n_genes)])
    return frame, pd.Series(y, name="class"), planted
