"""The model EMA-TAN learns, stored compactly: every CPD a mixture of 2i small CPTs (seed 001 section 7.3.2).

Spec ``docs/decisions/seed001-ema-popgen.md`` section 5.4 ("Representation"): the averaged model is formally a
complete Bayesian network (``X_i`` has the parents ``C, X_1..X_{i-1}`` in the order pi), whose complete CPTs grow as
``K * prod_{l<i} r_l * r_i``. :class:`AveragedTANModel` keeps the mixture instead (``sum_i 2i`` small tables and
their weights), evaluates it with the EMA-TAN kernel, and expands complete CPTs only on request
(:meth:`AveragedTANModel.complete_cpd`, :meth:`AveragedTANModel.to_network`, both behind a size cap).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.models._build import sorted_parents
from pgmpy_ext.stats import TANMixtureLayout, TANMixtureParams, ematan_log_joint
from pgmpy_ext.utils import logsumexp_rows

__all__ = ["AveragedTANModel", "MAX_COMPLETE_CPD_SIZE", "MAX_MISSING_COMPLETIONS"]

#: Default cap on the entries of one complete CPT expanded by :meth:`AveragedTANModel.to_network`.
MAX_COMPLETE_CPD_SIZE = 10**6
#: Cap on the completions enumerated to sum the missing cells of one row out exactly.
MAX_MISSING_COMPLETIONS = 10**5


@dataclass(eq=False)
class AveragedTANModel:
    """An averaged TAN/forest model over a fixed order, with mixture CPDs.

    Parameters
    ----------
    layout : TANMixtureLayout
        Cardinalities in the order pi and the cluster count K.
    params : TANMixtureParams
        ``P(C)``, the option weights ``w_i^v`` and every option's CPT.
    features : sequence
        Attribute labels in the column order of the codes the model is evaluated on.
    order : sequence of int
        ``order[p]``: the column (index into ``features``) of the variable at position ``p`` of pi.
    states : dict
        ``{feature: list of states}`` in code order.
    cluster_node : hashable, default "cluster"

    Examples
    --------
    >>> import numpy as np
    >>> from pgmpy_ext.stats import TANMixtureLayout, TANMixtureParams
    >>> lay = TANMixtureLayout.build([2, 2], 2)
    >>> w = np.array([0.5, 0.5, 0.1, 0.2, 0.3, 0.4])        # X_0: {}, {C}; X_1: {}, {X_0}, {C}, {C, X_0}
    >>> params = TANMixtureParams(np.array([0.4, 0.6]), w, np.full(4, 0.5), np.full(4, 0.5),
    ...                           np.array([0.9, 0.2, 0.1, 0.8, 0.7, 0.3, 0.3, 0.7]), np.full(8, 0.5))
    >>> m = AveragedTANModel(lay, params, ["a", "b"], [1, 0], {"a": [0, 1], "b": ["x", "y"]})
    >>> m.order_labels, m.parents("a")
    (['b', 'a'], ['cluster', 'b'])
    >>> pj = np.exp(m.log_joint(np.array([[0, 1], [1, 1], [-1, 1]])))   # a missing cell is summed out
    >>> bool(np.allclose(pj[0] + pj[1], pj[2]))
    True
    >>> m.option_posterior()["a"]
    {(): 0.1, ('b',): 0.2, ('cluster',): 0.3, ('cluster', 'b'): 0.4}
    """

    layout: TANMixtureLayout
    params: TANMixtureParams
    features: Sequence
    order: Sequence
    states: dict
    cluster_node: object = "cluster"

    def __post_init__(self):
        self.features = list(self.features)
        self.order = np.asarray(self.order, dtype=np.intp)
        if sorted(self.order.tolist()) != list(range(len(self.features))):
            raise ValueError(f"order must be a permutation of 0..{len(self.features) - 1}, got {self.order.tolist()}.")

    # ------------------------------------------------------------------ structure facts
    @property
    def n_clusters(self) -> int:
        return self.layout.n_clusters

    @property
    def order_labels(self) -> list:
        """Feature labels in the order pi."""
        return [self.features[k] for k in self.order]

    def position(self, node) -> int:
        try:
            return self.order_labels.index(node)
        except ValueError:
            raise KeyError(f"{node!r} is not a feature of this model (features: {self.features!r}).") from None

    def parents(self, node) -> list:
        """The parents of ``node`` in the complete network: the cluster, then its predecessors in pi."""
        return [self.cluster_node, *self.order_labels[:self.position(node)]]

    def option_posterior(self) -> dict:
        """``{feature: {parent set (tuple): w_i^v}}``, the posterior of every local parent set, cluster first."""
        out = {}
        labels = self.order_labels
        for i, f in enumerate(labels):
            o0 = int(self.layout.option_off[i])
            entry = {}
            for o, (has_c, lp) in enumerate(self.layout.option_parents(i)):
                key = ((self.cluster_node,) if has_c else ()) + ((labels[lp],) if lp >= 0 else ())
                entry[key] = float(self.params.weights[o0 + o])
            out[f] = entry
        return out

    def arc_posterior(self) -> np.ndarray:
        """float64 (n + 1, n): entry ``[0, i]`` is ``P(C -> X_i)``, entry ``[1 + l, i]`` is ``P(X_l -> X_i)`` (rows
        and columns in ``features`` order; 0 where ``X_l`` does not precede ``X_i`` in pi)."""
        lay, w = self.layout, self.params.weights
        n = lay.n_vars
        out = np.zeros((n + 1, n))
        cols = self.order
        np.add.at(out, (0, cols[lay.option_var]), np.where(lay.option_has_c, w, 0.0))
        has_pred = lay.option_pred >= 0
        np.add.at(out, (1 + cols[lay.option_pred[has_pred]], cols[lay.option_var[has_pred]]), w[has_pred])
        return out

    # ------------------------------------------------------------------ evaluation
    def log_joint(self, codes, *, max_completions: int = MAX_MISSING_COMPLETIONS) -> np.ndarray:
        """``log p(x, C = j)`` of rows coded in ``features`` order, shape (n_rows, K).

        A cell coded -1 (missing) is summed out exactly by enumerating the completions of its row; a row with more
        than ``max_completions`` completions raises a ValueError.
        """
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        if codes.ndim != 2 or codes.shape[1] != len(self.features):
            raise ValueError(f"codes must have shape (n_rows, {len(self.features)}), got {codes.shape}.")
        X = np.ascontiguousarray(codes[:, self.order])
        missing = (X < 0).any(axis=1)
        out = np.empty((X.shape[0], self.n_clusters))
        if not missing.any():
            return ematan_log_joint(self.layout, X, self.params)
        out[~missing] = ematan_log_joint(self.layout, X[~missing], self.params)
        cards = self.layout.cards
        for r in np.flatnonzero(missing):
            holes = np.flatnonzero(X[r] < 0)
            n_comp = int(np.prod(cards[holes], dtype=np.float64))
            if n_comp > max_completions:
                raise ValueError(f"row {r} has {holes.size} missing cells with {n_comp} joint completions (more "
                                 f"than max_completions={max_completions}); summing them out exactly would enumerate "
                                 "them all. Impute the row or drop some of its missing cells.")
            grid = np.array(list(itertools.product(*[range(int(cards[h])) for h in holes])), dtype=np.int32)
            rows = np.repeat(X[r:r + 1], grid.shape[0], axis=0)
            rows[:, holes] = grid
            lj = ematan_log_joint(self.layout, rows, self.params)
            out[r] = logsumexp_rows(lj.T)
        return out

    # ------------------------------------------------------------------ complete CPDs
    def complete_cpd_size(self, node) -> int:
        """Entries of ``node``'s complete CPT: ``r_i * K * prod_{l < i} r_l``."""
        i = self.position(node)
        cards = self.layout.cards
        return int(cards[i]) * self.n_clusters * int(np.prod(cards[:i], dtype=np.int64))

    def complete_table(self, node) -> np.ndarray:
        """``P(node | C, X_<i)`` expanded, float64 of shape ``(r_i, K, r_0, ..., r_{i-1})`` (predecessors in pi)."""
        i = self.position(node)
        lay, p = self.layout, self.params
        K, cards = self.n_clusters, lay.cards
        ri = int(cards[i])
        shape = (ri, K, *[int(c) for c in cards[:i]])
        w = p.weights[lay.option_off[i]:lay.option_off[i + 1]]
        t = np.zeros(shape)
        ones = [1] * i
        t += (w[0] * p.single_ind[lay.single_off[i]:lay.single_off[i + 1]]).reshape(ri, 1, *ones)
        sd = p.single_dep[lay.single_off[i] * K:lay.single_off[i + 1] * K].reshape(ri, K)
        t += (w[i + 1] * sd).reshape(ri, K, *ones)
        p0 = i * (i - 1) // 2
        for lp in range(i):
            rl = int(cards[lp])
            lo, hi = int(lay.pair_off[p0 + lp]), int(lay.pair_off[p0 + lp + 1])
            bshape = [1] * i
            bshape[lp] = rl
            ind = p.pair_ind[lo:hi].reshape(rl, ri).T  # (r_i, r_l)
            t += (w[1 + lp] * ind).reshape(ri, 1, *bshape)
            dep = p.pair_dep[lo * K:hi * K].reshape(rl, ri, K).transpose(1, 2, 0)  # (r_i, K, r_l)
            t += (w[i + 2 + lp] * dep).reshape(ri, K, *bshape)
        return t

    def complete_cpd(self, node, *, max_cpd_size: int = MAX_COMPLETE_CPD_SIZE) -> TabularCPD:
        """``node``'s complete CPT as a pgmpy ``TabularCPD`` (evidence in pgmpy's sorted order, the user's states).

        Raises a ValueError when it has more than ``max_cpd_size`` entries.
        """
        size = self.complete_cpd_size(node)
        if size > max_cpd_size:
            raise ValueError(f"the complete CPT of {node!r} has {size} entries (r_i * K * prod of its predecessors' "
                             f"cardinalities), more than max_cpd_size={max_cpd_size}. Raise max_cpd_size, or use the "
                             "compact mixture (averaged_model_: log_joint, option_posterior, complete_table) instead "
                             "of a pgmpy network.")
        parents = self.parents(node)
        table = self.complete_table(node)
        ev = sorted_parents(parents)
        axes = [0] + [1 + parents.index(v) for v in ev]
        values = table.transpose(axes).reshape(table.shape[0], -1)
        sn = {node: list(self.states[node])}
        card_of = {self.cluster_node: self.n_clusters}
        sn[self.cluster_node] = list(range(self.n_clusters))
        for v in ev:
            if v != self.cluster_node:
                sn[v] = list(self.states[v])
                card_of[v] = len(self.states[v])
        return TabularCPD(node, table.shape[0], values, evidence=ev, evidence_card=[card_of[v] for v in ev],
                          state_names=sn)

    def to_network(self, *, max_cpd_size: int = MAX_COMPLETE_CPD_SIZE) -> DiscreteBayesianNetwork:
        """The complete pgmpy network (cluster node latent, a parent of every feature; ``X_l -> X_i`` for every
        ``l`` before ``i`` in pi) with the expanded CPTs. Raises a ValueError naming the first feature whose CPT
        has more than ``max_cpd_size`` entries."""
        C = self.cluster_node
        labels = self.order_labels
        cpds = [self.complete_cpd(f, max_cpd_size=max_cpd_size) for f in labels]
        c_cpd = TabularCPD(C, self.n_clusters, self.params.theta_c.reshape(-1, 1),
                           state_names={C: list(range(self.n_clusters))})
        model = DiscreteBayesianNetwork()
        model.add_nodes_from([C, *self.features])
        model.add_edges_from([(p, f) for f in labels for p in self.parents(f)])
        model.latents = {C}
        model.add_cpds(c_cpd, *cpds)
        return model

    def permute_clusters(self, perm) -> AveragedTANModel:
        return AveragedTANModel(self.layout, self.params.permute_clusters(perm, self.layout), self.features,
                                self.order, self.states, self.cluster_node)

