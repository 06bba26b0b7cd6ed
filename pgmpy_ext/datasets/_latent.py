"""Random generators of the clustering experiments of seed 001 chapter 7 (spec
``docs/decisions/seed001-ema-popgen.md`` sections 7.5, 8.1-8.3 and 8.5; decisions AMBIG-13, 14 and 17).

Every generator draws a random discrete Bayesian network over a class (cluster) node ``C`` and predictive
variables ``X0 .. X{n-1}``, then forward-samples it. The model comes back as a :class:`RandomLatentModel`, which
can be sampled again at other sizes (Tables 7.1/7.2 sample each model at N = 10 .. 640) and exported to pgmpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pgmpy_ext.utils import check_generator

__all__ = ["RandomLatentModel", "make_model_detection", "make_random_bn_classifier", "make_random_selective_nb",
           "make_random_tan", "pruefer_tree"]


@dataclass
class RandomLatentModel:
    """A discrete Bayesian network over a class node ``C`` and features ``X0`` to ``X{n-1}``, stored as arrays.

    Attributes
    ----------
    class_prior : ndarray of shape (r_C,)
        P(C).
    cards : ndarray of shape (n,)
        Number of states of each feature.
    class_parent : ndarray of bool, shape (n,)
        Whether C is a parent of X_i (the arc C -> X_i).
    parents : list of tuple of int
        Feature parents of each X_i (indices, sorted), not counting C.
    cpts : list of ndarray
        ``cpts[i]`` has shape ``(r_i, [r_C], *cards[parents[i]])``: P(X_i | C, parents) with the class axis first
        among the conditioning axes when ``class_parent[i]`` (the pgmpy ``TabularCPD`` layout with
        ``evidence = [C] + parents``).
    order : ndarray of shape (n,)
        A topological order of the features.
    feature_names : list of str
    class_name : str
    """

    class_prior: np.ndarray
    cards: np.ndarray
    class_parent: np.ndarray
    parents: list
    cpts: list
    order: np.ndarray
    feature_names: list = field(default_factory=list)
    class_name: str = "C"

    @property
    def n_features(self) -> int:
        return int(self.cards.shape[0])

    @property
    def n_clusters(self) -> int:
        return int(self.class_prior.shape[0])

    def evidence(self, i: int) -> list[str]:
        """Names of the parents of ``X_i`` in CPT axis order (C first)."""
        ev = [self.class_name] if self.class_parent[i] else []
        return ev + [self.feature_names[p] for p in self.parents[i]]

    def sample_codes(self, n_samples: int, random_state=None) -> tuple[np.ndarray, np.ndarray]:
        """Forward-sample ``n_samples`` rows: ``(codes (N, n) int32, labels (N,) int64)``."""
        rng = check_generator(random_state)
        n_samples = int(n_samples)
        y = _draw(np.broadcast_to(self.class_prior, (n_samples, self.n_clusters)), rng.random(n_samples))
        codes = np.zeros((n_samples, self.n_features), dtype=np.int32)
        u = rng.random((n_samples, self.n_features))
        for i in self.order:
            table = self.cpts[i]
            idx = tuple([y] if self.class_parent[i] else []) + tuple(codes[:, p] for p in self.parents[i])
            probs = np.moveaxis(table, 0, -1)[idx] if idx else np.broadcast_to(table, (n_samples, table.shape[0]))
            codes[:, i] = _draw(probs, u[:, i])
        return codes, y

    def sample(self, n_samples: int, random_state=None) -> tuple[pd.DataFrame, pd.Series]:
        """Forward-sample ``n_samples`` rows: ``(X, y)`` with integer columns named :attr:`feature_names` and the
        true classes as a Series named :attr:`class_name`."""
        codes, y = self.sample_codes(n_samples, random_state)
        X = pd.DataFrame(codes.astype(np.int64), columns=list(self.feature_names))
        return X, pd.Series(y, name=self.class_name)

    def to_network(self, *, latent: bool = False):
        """The model as a pgmpy ``DiscreteBayesianNetwork`` (``latent=True`` declares C latent)."""
        from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD

        c = self.class_name
        edges = [(c, self.feature_names[i]) for i in range(self.n_features) if self.class_parent[i]]
        edges += [(self.feature_names[p], self.feature_names[i]) for i in range(self.n_features)
                  for p in self.parents[i]]
        net = DiscreteBayesianNetwork(edges, latents={c} if latent else set())
        net.add_nodes_from([c, *self.feature_names])
        cpds = [TabularCPD(c, self.n_clusters, self.class_prior.reshape(-1, 1))]
        for i, name in enumerate(self.feature_names):
            ev = self.evidence(i)
            table = self.cpts[i]
            if ev:
                cpds.append(TabularCPD(name, int(self.cards[i]), table.reshape(table.shape[0], -1), evidence=ev,
                                       evidence_card=list(table.shape[1:])))
            else:
                cpds.append(TabularCPD(name, int(self.cards[i]), table.reshape(-1, 1)))
        net.add_cpds(*cpds)
        return net


def _draw(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draw per row of ``probs`` (rows sum to 1) with uniforms ``u``."""
    cdf = np.cumsum(probs, axis=-1)
    k = (u[:, None] >= cdf[:, :-1]).sum(axis=1)
    return k.astype(np.int64)


def _dirichlet_cpt(rng, r: int, cond_shape: tuple) -> np.ndarray:
    """Dirichlet(1) columns: shape ``(r, *cond_shape)``, uniform on the simplex for every parent configuration."""
    g = rng.gamma(1.0, size=(*cond_shape, r))
    g /= g.sum(axis=-1, keepdims=True)
    return np.moveaxis(g, -1, 0)


def _cards(rng, n: int, states) -> np.ndarray:
    lo, hi = _states(states)
    return rng.integers(lo, hi + 1, size=n).astype(np.int64)


def _states(states) -> tuple[int, int]:
    lo, hi = (states, states) if np.isscalar(states) else tuple(states)
    if not (2 <= int(lo) <= int(hi)):
        raise ValueError(f"states == {states!r}: expected an int >= 2 or a pair (low, high) with 2 <= low <= high.")
    return int(lo), int(hi)


def _class_subset(rng, n: int, p_dependent: float, min_dependent: int) -> np.ndarray:
    if not 0.0 <= p_dependent <= 1.0:
        raise ValueError(f"p_dependent == {p_dependent!r}, must be in [0, 1].")
    if not 0 <= min_dependent <= n:
        raise ValueError(f"min_dependent == {min_dependent!r}, must be in [0, n_features] = [0, {n}].")
    dep = rng.random(n) < p_dependent
    short = min_dependent - int(dep.sum())
    if short > 0:  # add the missing arcs C -> X at random among the independent features
        dep[rng.choice(np.flatnonzero(~dep), size=short, replace=False)] = True
    return dep


def _check_sizes(n_samples, n_features, n_clusters):
    if int(n_features) < 1:
        raise ValueError(f"n_features == {n_features!r}, must be >= 1.")
    if int(n_clusters) < 2:
        raise ValueError(f"n_clusters == {n_clusters!r}, must be >= 2.")
    if int(n_samples) < 0:
        raise ValueError(f"n_samples == {n_samples!r}, must be >= 0.")


def _build(rng, cards, class_parent, parents, order, n_clusters) -> RandomLatentModel:
    prior = _dirichlet_cpt(rng, n_clusters, ())
    parents = [tuple(sorted(int(p) for p in pa)) for pa in parents]
    cpts = []
    for i in range(len(cards)):
        cond = ((n_clusters,) if class_parent[i] else ()) + tuple(int(cards[p]) for p in parents[i])
        cpts.append(_dirichlet_cpt(rng, int(cards[i]), cond))
    names = [f"X{i}" for i in range(len(cards))]
    return RandomLatentModel(prior, np.asarray(cards, dtype=np.int64), np.asarray(class_parent, dtype=bool),
                             parents, cpts,
                             np.asarray(order, dtype=np.int64), names)


def make_random_selective_nb(n_samples: int = 100, n_features: int = 4, n_clusters: int = 2, *,
                             states=(2, 5), p_dependent: float = 0.5, min_dependent: int = 1, random_state=None):
    r"""A random selective naive Bayes and a sample from it (Santafé 2007, Table 7.1 and Figs 7.2/7.3 generator).

    As reconstructed in ``docs/decisions/seed001-ema-popgen.md`` ("Chapter 7 experiments"): every feature has
    :math:`r_i \sim U\{2..5\}` states, depends on C with probability ``p_dependent`` (at least
    ``min_dependent`` do), and every CPT column is uniform on the simplex (Dirichlet(1), the reading of the thesis's
    "random parameters"). This replaces the thesis's modified BNGenerator, which is not available.

    Parameters
    ----------
    n_samples : int, default 100
        Rows sampled from the model (0 allowed; use ``model.sample`` for more samples of the same model).
    n_features : int, default 4
    n_clusters : int, default 2
        States of the class (cluster) node C.
    states : int or (int, int), default (2, 5)
        Feature cardinalities, drawn uniformly from ``low .. high`` (Figs 7.2/7.3 use 2: binary features).
    p_dependent : float, default 0.5
        Probability of the arc C -> X_i.
    min_dependent : int, default 1
    random_state : None, int or numpy Generator
        The model is drawn first, then the sample, from one generator.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, n_features)
        Integer codes ``0 .. r_i - 1`` in columns ``X0 ..``.
    y : pandas.Series
        The sampled (true) classes, named ``"C"``.
    model : RandomLatentModel

    Examples
    --------
    >>> X, y, model = make_random_selective_nb(50, 6, 3, random_state=0)
    >>> X.shape, model.n_clusters, model.parents == [()] * 6, bool(y.isin([0, 1, 2]).all())
    ((50, 6), 3, True, True)
    >>> bool(model.class_parent.any()), model.to_network().check_model()
    (True, True)
    """
    _check_sizes(n_samples, n_features, n_clusters)
    rng = check_generator(random_state)
    n = int(n_features)
    cards = _cards(rng, n, states)
    dep = _class_subset(rng, n, p_dependent, min_dependent)
    model = _build(rng, cards, dep, [()] * n, np.arange(n), int(n_clusters))
    return (*model.sample(n_samples, rng), model)


def make_random_bn_classifier(n_samples: int = 100, n_features: int = 4, n_clusters: int = 2, *, max_parents: int = 2,
                              states=(2, 5), p_dependent: float = 0.5, min_dependent: int = 1, random_state=None):
    r"""A random Bayesian-network classifier and a sample from it (Santafé 2007, Table 7.2 generator).

    As reconstructed in ``docs/decisions/seed001-ema-popgen.md`` ("Synthetic clustering, EMA vs EM"): ``max_parents``
    (the thesis's #Pa) bounds the **feature** parents of
    every X_i; C does not count. The DAG is a random order plus random parents: the feature at position t of a
    uniformly random order draws its number of parents uniformly from ``0 .. min(max_parents, t)`` and then that
    many distinct predecessors uniformly (the thesis's BNGenerator samples DAGs uniformly by MCMC under degree
    constraints; this simpler scheme is the spec's recommended alternative, so the DAG distribution differs).
    C is a parent of a random subset (probability ``p_dependent``, at least ``min_dependent``); every CPT column
    is Dirichlet(1).

    Parameters
    ----------
    n_samples, n_features, n_clusters, states, p_dependent, min_dependent, random_state
        As in :func:`make_random_selective_nb`.
    max_parents : int, default 2
        Maximum number of feature parents (>= 0; 0 gives a selective naive Bayes).

    Returns
    -------
    X, y, model
        As in :func:`make_random_selective_nb`.

    Examples
    --------
    >>> X, y, model = make_random_bn_classifier(30, 8, 2, max_parents=3, random_state=1)
    >>> max(len(p) for p in model.parents) <= 3, model.to_network().check_model()
    (True, True)
    """
    _check_sizes(n_samples, n_features, n_clusters)
    if int(max_parents) < 0:
        raise ValueError(f"max_parents == {max_parents!r}, must be >= 0.")
    rng = check_generator(random_state)
    n = int(n_features)
    cards = _cards(rng, n, states)
    dep = _class_subset(rng, n, p_dependent, min_dependent)
    order = rng.permutation(n)
    parents = [()] * n
    for t, i in enumerate(order):
        k = int(rng.integers(0, min(int(max_parents), t) + 1))
        parents[i] = tuple(order[rng.choice(t, size=k, replace=False)]) if k else ()
    model = _build(rng, cards, dep, parents, order, int(n_clusters))
    return (*model.sample(n_samples, rng), model)


def pruefer_tree(n: int, random_state=None) -> list[tuple[int, int]]:
    """A uniformly random labelled tree on the nodes ``0`` to ``n-1`` (Prüfer decoding): its ``n - 1`` undirected edges.

    Examples
    --------
    >>> edges = pruefer_tree(6, random_state=0)
    >>> len(edges), len({v for e in edges for v in e})
    (5, 6)
    >>> pruefer_tree(1), pruefer_tree(2)
    ([], [(0, 1)])
    """
    rng = check_generator(random_state)
    n = int(n)
    if n <= 1:
        return []
    if n == 2:
        return [(0, 1)]
    seq = rng.integers(0, n, size=n - 2)
    degree = np.ones(n, dtype=np.int64)
    np.add.at(degree, seq, 1)
    edges = []
    for v in seq:
        leaf = int(np.flatnonzero(degree == 1)[0])  # the smallest leaf
        edges.append((leaf, int(v)))
        degree[leaf] -= 1
        degree[v] -= 1
    u, w = np.flatnonzero(degree == 1)
    edges.append((int(u), int(w)))
    return edges


def make_random_tan(n_samples: int = 100, n_features: int = 4, n_clusters: int = 2, *, states=(2, 3),
                    random_state=None):
    r"""A random TAN model and a sample from it (Santafé 2007, Tables 7.4-7.6 generator; the thesis gives no
    details, see ``docs/decisions/seed001-ema-popgen.md``).

    The feature tree is a uniformly random labelled tree (a random Prüfer sequence), its edges are oriented away
    from a uniformly random root, C is a parent of every feature, and every CPT column is Dirichlet(1).
    Feature cardinalities are drawn uniformly from ``states`` (the thesis's ``r_i <= 3``, section 7.6).

    Parameters
    ----------
    n_samples, n_features, n_clusters, random_state
        As in :func:`make_random_selective_nb`.
    states : int or (int, int), default (2, 3)

    Returns
    -------
    X, y, model
        As in :func:`make_random_selective_nb`; ``model.parents[i]`` is ``()`` for the root and ``(l,)`` for
        the others, ``model.class_parent`` is all True, and ``model.order`` is a breadth-first order from the root.

    Examples
    --------
    >>> X, y, model = make_random_tan(40, 5, random_state=0)
    >>> sorted(len(p) for p in model.parents), bool(model.class_parent.all())
    ([0, 1, 1, 1, 1], True)
    >>> model.to_network().check_model()
    True
    """
    _check_sizes(n_samples, n_features, n_clusters)
    rng = check_generator(random_state)
    n = int(n_features)
    cards = _cards(rng, n, states)
    edges = pruefer_tree(n, rng)
    root = int(rng.integers(n))
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    parents = [()] * n
    order = [root]
    seen = np.zeros(n, dtype=bool)
    seen[root] = True
    for v in order:  # breadth-first from the root; the list grows while iterating
        for w in sorted(adj[v]):
            if not seen[w]:
                seen[w] = True
                parents[w] = (v,)
                order.append(w)
    model = _build(rng, cards, np.ones(n, dtype=bool), parents, order, int(n_clusters))
    return (*model.sample(n_samples, rng), model)


def make_model_detection(n_samples: int = 100, *, n_dependent: int = 4, n_independent: int = 4, p_low: float = 0.2,
                         p_high: float = 0.8, random_state=None):
    r"""The model-detection selective naive Bayes of Santafé (2007), section 7.5.2 (Figs 7.4/7.5; a
    reconstruction).

    The thesis's two hand-built models are lost in the extraction; ``docs/decisions/seed001-ema-popgen.md``
    ("Model detection") reconstructs them: a binary
    uniform C, ``n_dependent`` binary features with :math:`P(X_i = 1 | c^0) = ` ``p_low`` and
    :math:`P(X_i = 1 | c^1) = ` ``p_high``, then ``n_independent`` binary features with :math:`P(X_i = 1) = 0.5`
    and no arc from C. Columns ``X0 .. X{n_dependent-1}`` are the dependent ones.

    Returns
    -------
    X, y, model
        As in :func:`make_random_selective_nb`.

    Examples
    --------
    >>> X, y, model = make_model_detection(20, n_dependent=2, n_independent=3, random_state=0)
    >>> model.class_parent.tolist(), X.shape
    ([True, True, False, False, False], (20, 5))
    """
    for name, v in (("p_low", p_low), ("p_high", p_high)):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name} == {v!r}, must be in [0, 1].")
    if int(n_dependent) < 0 or int(n_independent) < 0 or int(n_dependent) + int(n_independent) < 1:
        raise ValueError(f"n_dependent == {n_dependent!r} and n_independent == {n_independent!r}: both must be >= 0 "
                         "and at least one feature is needed.")
    rng = check_generator(random_state)
    nd, ni = int(n_dependent), int(n_independent)
    n = nd + ni
    dep_cpt = np.array([[1 - p_low, 1 - p_high], [p_low, p_high]])
    cpts = [dep_cpt.copy() for _ in range(nd)] + [np.array([0.5, 0.5]) for _ in range(ni)]
    model = RandomLatentModel(np.array([0.5, 0.5]), np.full(n, 2, dtype=np.int64),
                              np.arange(n) < nd, [()] * n, cpts, np.arange(n), [f"X{i}" for i in range(n)])
    return (*model.sample(n_samples, rng), model)
