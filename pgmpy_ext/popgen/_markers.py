r"""Marker selection: the two-step chi-square / mutual-information test of Santafé (2007), section 8.2.1.

Step 1 keeps the markers relevant to the clusters, :math:`s\,N\,I(X_i; C) \ge \chi^2_{1-p_{rel}}((r_i-1)(r_C-1))`.
Step 2 visits the kept markers in decreasing :math:`I(X_i; C)` and, for each kept marker, tests it against every
lower-ranked kept marker with :math:`s\,N\,I(X_i; X_{i'})` against :math:`\chi^2_{1-p_{red}}((r_i-1)(r_{i'}-1))`;
when the redundancy rule fires, the lower-ranked marker is dropped. Every mutual information is the **model's**
(in nats), computed from the fitted allele frequencies and cluster weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2

from pgmpy_ext.stats import model_mi_with_cluster, pairwise_model_mi
from pgmpy_ext.utils import check_option

__all__ = ["REDUNDANCY_RULES", "MarkerSelection", "select_markers"]

#: ``"as_printed"``: a pair is redundant when it is *not* significantly dependent (the thesis's Fig. 8.1);
#: ``"dependent"``: when it *is* significantly dependent (the intuitive reading).
REDUNDANCY_RULES = ("as_printed", "dependent")


@dataclass
class MarkerSelection:
    """Result of :func:`select_markers`.

    Attributes
    ----------
    selected : ndarray of intp
        Indices of the selected markers, in decreasing relevance. For a ``PopulationEMA`` these index the loci of
        its training input (every per-locus array below too; monomorphic loci, which the model dropped, have NaN
        statistics and are never relevant).
    names : list
        Their names.
    mi_cluster : ndarray (n_loci,)
        Model :math:`I(X_i; C)` in nats.
    relevance_stat, relevance_threshold : ndarray (n_loci,)
        :math:`s N I(X_i; C)` and its chi-square critical value.
    relevant : ndarray of bool (n_loci,)
        Passed step 1.
    removed_by : ndarray of intp (n_loci,)
        For a marker dropped in step 2, the higher-ranked marker that removed it; -1 otherwise.
    n_pairs_flagged : int
        Pairs on which the redundancy rule fired (among markers still kept at that point).
    params : dict
        ``p_rel``, ``p_red``, ``redundancy_rule``, ``stat_scale``, ``n``.
    """

    selected: np.ndarray
    names: list
    mi_cluster: np.ndarray
    relevance_stat: np.ndarray
    relevance_threshold: np.ndarray
    relevant: np.ndarray
    removed_by: np.ndarray
    n_pairs_flagged: int
    params: dict


def select_markers(model=None, *, theta=None, cluster_weights=None, cards=None, n_individuals=None, ploidy: int = 1,
                   loci=None, p_rel: float = 0.01, p_red: float = 0.01, redundancy_rule: str = "as_printed",
                   stat_scale: float = 2.0, n: str = "individuals", pairwise_mi=None,
                   n_jobs: int | None = 1) -> MarkerSelection:
    r"""Select markers with the two-step chi-square / mutual-information test (Santafé 2007, section 8.2.1, Fig. 8.1).

    Parameters
    ----------
    model : fitted PopulationEMA, optional
        Takes ``theta_``, ``weights_``, ``cards_``, ``n_individuals_``, ``ploidy`` and ``loci_`` from it.
        Otherwise pass ``theta``, ``cluster_weights``, ``cards`` and ``n_individuals``.
    theta : array-like (sum(cards), K)
        Allele frequencies ``P(X_i = k | C = j)``, locus blocks stacked.
    cluster_weights : array-like (K,)
    cards : array-like (n_loci,)
    n_individuals : int
    ploidy : int, default 1
    loci : list, optional
        Marker names (default ``0..n_loci-1``).
    p_rel : float in [0, 1], default 0.01
        Relevance level; a higher ``p_rel`` keeps more markers.
    p_red : float in [0, 1], default 0.01
        Redundancy level. Under ``"as_printed"``, ``p_red = 0`` makes every pair redundant (one marker survives);
        under ``"dependent"`` it turns redundancy filtering off.
    redundancy_rule : {"as_printed", "dependent"}, default "as_printed"
        Drop the less relevant marker of a pair when :math:`s N I < \chi^2_{1-p_{red}}` (as printed)
        or when :math:`s N I \ge \chi^2_{1-p_{red}}` (dependent); the thesis's direction is ambiguous, see
        ``docs/decisions/seed001-ema-popgen.md`` ("Marker selection").
    stat_scale : float, default 2.0
        :math:`s` in :math:`s N I` (2 is the likelihood-ratio statistic; the design record's toy discussion also
        considers 1).
    n : {"individuals", "copies"}, default "individuals"
        :math:`N` in :math:`2NI` is the number of individuals, or of allele copies (``ploidy * N``).
    pairwise_mi : array-like (n_loci, n_loci), optional
        The model's pairwise mutual information over all its loci (``pgmpy_ext.stats.pairwise_model_mi``), to reuse
        across a grid of thresholds; computed for the relevant loci when None.
    n_jobs : int or None, default 1
        Threads of the pairwise MI kernel.

    Returns
    -------
    MarkerSelection

    Examples
    --------
    Three SNPs, two clusters: SNP 0 and SNP 1 separate the clusters identically, SNP 2 does not.

    >>> import numpy as np
    >>> theta = np.array([[0.95, 0.05], [0.05, 0.95], [0.95, 0.05], [0.05, 0.95], [0.5, 0.5], [0.5, 0.5]])
    >>> sel = select_markers(theta=theta, cluster_weights=[0.5, 0.5], cards=[2, 2, 2], n_individuals=100,
    ...                      redundancy_rule="dependent")
    >>> sel.selected.tolist(), sel.relevant.tolist()
    ([0], [True, True, False])
    """
    check_option(redundancy_rule, "redundancy_rule", REDUNDANCY_RULES)
    check_option(n, "n", ("individuals", "copies"))
    for name, p in (("p_rel", p_rel), ("p_red", p_red)):
        if not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"{name} == {p}, must be in [0, 1].")
    if not float(stat_scale) > 0:
        raise ValueError(f"stat_scale == {stat_scale}, must be > 0.")
    index_map = None
    if model is not None:
        theta, cluster_weights, cards = model.theta_, model.weights_, model.cards_
        n_individuals, ploidy, loci = model.n_individuals_, model.ploidy, model.loci_
        if not model.loci_mask_.all():
            index_map = np.flatnonzero(model.loci_mask_)
    if theta is None or cluster_weights is None or cards is None or n_individuals is None:
        raise ValueError("pass a fitted PopulationEMA, or theta, cluster_weights, cards and n_individuals.")
    cards = np.asarray(cards, dtype=np.intp)
    w = np.asarray(cluster_weights, dtype=float)
    n_loci, K = len(cards), len(w)
    loci = list(range(n_loci)) if loci is None else list(loci)
    N = float(n_individuals) * (int(ploidy) if n == "copies" else 1)
    mi_c = model_mi_with_cluster(theta, w, cards)
    stat = float(stat_scale) * N * mi_c
    df_rel = (cards - 1) * (K - 1)
    thr = chi2.ppf(1.0 - float(p_rel), np.maximum(df_rel, 1))
    relevant = (stat >= thr) & (df_rel > 0)
    order = np.flatnonzero(relevant)
    order = order[np.argsort(-mi_c[order], kind="stable")]  # decreasing relevance, ties by index
    removed_by = np.full(n_loci, -1, dtype=np.intp)
    n_flagged = 0
    if len(order) > 1:
        if pairwise_mi is None:
            mi_pair = pairwise_model_mi(theta, w, cards, loci=order, n_jobs=n_jobs)
        else:
            pairwise_mi = np.asarray(pairwise_mi, dtype=float)
            if pairwise_mi.shape != (n_loci, n_loci):
                raise ValueError(f"pairwise_mi has shape {pairwise_mi.shape}, expected ({n_loci}, {n_loci}).")
            mi_pair = pairwise_mi[np.ix_(order, order)]
        dfp = np.maximum(np.outer(cards[order] - 1, cards[order] - 1), 1)
        udf, inv = np.unique(dfp, return_inverse=True)  # few distinct degrees of freedom: ppf once per value
        thr_pair = chi2.ppf(1.0 - float(p_red), udf)[inv].reshape(dfp.shape)
        stat_pair = float(stat_scale) * N * mi_pair
        flag = stat_pair < thr_pair if redundancy_rule == "as_printed" else stat_pair >= thr_pair
        kept = np.ones(len(order), dtype=bool)
        for a in range(len(order)):
            if not kept[a]:
                continue
            hit = flag[a, a + 1:] & kept[a + 1:]
            n_flagged += int(hit.sum())
            drop = np.flatnonzero(hit) + a + 1
            kept[drop] = False
            removed_by[order[drop]] = order[a]
        selected = order[kept]
    else:
        selected = order
    names = [loci[i] for i in selected]
    if index_map is not None:  # back to the model's input loci (monomorphic ones were never in the model)
        n_in = len(model.loci_mask_)
        full = {}
        for key, arr, fill in (("mi", mi_c, np.nan), ("stat", stat, np.nan), ("thr", thr, np.nan),
                               ("rel", relevant, False)):
            out = np.full(n_in, fill, dtype=arr.dtype)
            out[index_map] = arr
            full[key] = out
        mi_c, stat, thr, relevant = full["mi"], full["stat"], full["thr"], full["rel"]
        rb = np.full(n_in, -1, dtype=np.intp)
        rb[index_map] = np.where(removed_by >= 0, index_map[np.maximum(removed_by, 0)], -1)
        removed_by, selected = rb, index_map[selected]
    return MarkerSelection(selected.astype(np.intp), names, mi_c, stat, thr, relevant, removed_by, n_flagged,
                           {"p_rel": float(p_rel), "p_red": float(p_red), "redundancy_rule": redundancy_rule,
                            "stat_scale": float(stat_scale), "n": n})
