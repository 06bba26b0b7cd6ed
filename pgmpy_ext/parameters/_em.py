r"""EM for a discrete Bayesian network with one latent node, as a pgmpy parameter estimator (seed 001 ch. 6).

:class:`LatentEM` is a drop-in for pgmpy's ``DiscreteEM`` for the models it can do exactly and fast: any DAG whose
nodes are observed except one latent node (latent-class models, latent TAN, the CEM models, a latent with observed
parents). The E step is the compiled kernel :func:`pgmpy_ext.stats.estep_accumulate` on the distinct observed rows
with their multiplicities; the M step is :meth:`~pgmpy_ext.stats.NetworkLayout.normalize` (posterior mean with a
Dirichlet ``alpha``, maximum likelihood with ``alpha=0`` as pgmpy's weighted ``DiscreteMLE``).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from pgmpy_ext._compat import DAG, DiscreteBayesianNetwork, DiscreteParameterEstimator, TabularCPD
from pgmpy_ext.data import PARAMETER_VOCABULARY, check_pgmpy_data, encode
from pgmpy_ext.models import cpds_from_layout, sorted_parents
from pgmpy_ext.stats import NetworkLayout, estep_accumulate, unique_rows
from pgmpy_ext.utils import Interval, Options, check_generator, check_params, dirichlet_tables, iterate

__all__ = ["LatentEM"]


class _LatentEMSteps:
    """E step (Cython, distinct rows) and M step (posterior mean) of :class:`LatentEM` for
    :func:`pgmpy_ext.utils.iterate`; the parameters are the flat CPD buffer of ``layout``."""

    def __init__(self, layout: NetworkLayout, rows, alpha: float, log):
        self.layout, self.rows, self.alpha, self.log = layout, rows, alpha, log

    def e_step(self, probs):
        res = estep_accumulate(self.layout, self.log(probs), self.rows.codes, self.rows.counts)
        return res, res.loglik

    def m_step(self, res, probs):
        return self.layout.normalize(res.counts, self.alpha)


class LatentEM(DiscreteParameterEstimator):
    r"""EM parameters of a discrete Bayesian network with one latent node (pgmpy face, drop-in for ``DiscreteEM``).

    ``DiscreteBayesianNetwork(edges, latents={"H"}).fit(df, estimator=LatentEM(...))`` works in plain pgmpy. The
    latent node may have observed parents and children; every other node must be a column of the data. The E step
    runs in Cython on the distinct rows (pgmpy's ``DiscreteEM`` evaluates every CPD in Python for every distinct row
    and latent state), the log-likelihood of every iterate is recorded, and the random start goes through
    ``random_state``. The EM of Santafé (2007), section 6.2.1 (``docs/decisions/seed001-ema-popgen.md``).

    Parameters
    ----------
    state_names : dict, optional
        ``{variable: [states]}``; unspecified observed variables take their observed values (sorted).
    latent_card : int or dict, default None
        Number of states of the latent node (``{"H": k}`` as pgmpy, or an int); 2 when None.
    alpha : float, default 0.0
        Dirichlet pseudo-count per cell in the M step (pgmpy's ``pseudo_counts``); 0 is maximum likelihood, as
        pgmpy's default M step (``DiscreteMLE``), with a uniform column for a parent configuration of zero weight.
    max_iter : int, default 100
    tol : float, default 1e-8
        Stop when no CPD entry moves by more than ``tol`` in an iteration (L-infinity; pgmpy ``DiscreteEM``'s rule
        and its ``atol``).
    init_cpds : dict, "random" or None, default None
        ``{node: TabularCPD}`` starting CPDs (pgmpy's convention; nodes not given start at random), or "random".
        Nodes that are neither the latent node nor one of its children do not depend on the E step: their CPDs are
        the M step of the observed counts from the first iteration on.
    min_prob : float, default 0.0
        Floor of every CPD entry in the E step. pgmpy's ``DiscreteEM`` uses ``max(p, 1e-10)``; pass 1e-10 to follow
        its trajectory exactly (tested on small data). 0 is exact EM.
    random_state : None, int or numpy.random.Generator
        Source of the random starting CPDs (Dirichlet(1) columns).
    show_progress : bool, default False

    Attributes
    ----------
    parameters_ : list of TabularCPD
        One CPD per node in ``model.nodes()`` order, evidence ``sorted(parents)``.
    state_names_ : dict
    ll_trace_ : numpy.ndarray
        Observed-data log-likelihood (natural log) of every iterate, the last one included.
    n_iter_ : int
    converged_ : bool

    Notes
    -----
    Rows with missing cells in observed columns are refused (pgmpy's ``DiscreteEM`` drops them silently); for the
    latent-class model, :class:`pgmpy_ext.clustering.LatentClassEM` sums missing cells out exactly. Compared with
    ``DiscreteEM`` from the same starting CPDs: with ``min_prob=1e-10`` both compute the same E step (pgmpy floors
    each CPD value at 1e-10 before the exponential) and the same weighted maximum-likelihood M step, so the
    trajectories agree to rounding (``tests/parameters/test_latent_em.py``); with the default ``min_prob=0`` they
    differ only where a probability falls below 1e-10. pgmpy returns the parameters of the M step that met
    ``tol``; so does this estimator.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork
    >>> rng = np.random.default_rng(0)
    >>> h = rng.integers(0, 2, 400)
    >>> df = pd.DataFrame({c: np.where(rng.random(400) < 0.9, h, 1 - h) for c in "ABC"})
    >>> bn = DiscreteBayesianNetwork([("H", "A"), ("H", "B"), ("H", "C")], latents={"H"})
    >>> est = LatentEM(random_state=0)
    >>> bn = bn.fit(df, estimator=est)
    >>> bool(bn.check_model()), bool(np.all(np.diff(est.ll_trace_) > -1e-9))
    (True, True)
    """

    _tags = {"supports_weighted_data": True, "supports_latent_variables": True, "supports_missing_data": False}

    def __init__(self, state_names: dict | None = None, latent_card=None, alpha: float = 0.0, max_iter: int = 100,
                 tol: float = 1e-8, init_cpds=None, min_prob: float = 0.0, random_state=None,
                 show_progress: bool = False):
        self.latent_card = latent_card
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.init_cpds = init_cpds
        self.min_prob = min_prob
        self.random_state = random_state
        self.show_progress = show_progress
        super().__init__(state_names=state_names)

    _parameter_constraints = {**PARAMETER_VOCABULARY, "state_names": [None, dict],
                              "latent_card": [None, Interval(numbers.Integral, 1, None), dict],
                              "init_cpds": [None, Options("random"), dict],
                              "min_prob": [Interval(numbers.Real, 0, 1)]}

    def _check_params(self):
        check_params(self)

    def fit(self, model, data: pd.DataFrame, sample_weight=None):
        """Estimate the CPDs of ``model`` (one latent node) from ``data`` by EM.

        Parameters
        ----------
        model : pgmpy.base.DAG or DiscreteBayesianNetwork
            The structure, with exactly one node in ``model.latents`` (or one node that is not a column of
            ``data``, or an all-missing column, which becomes the latent node).
        data : pandas.DataFrame
            One column per observed node, discrete values, no missing cells.
        sample_weight : array-like of shape (n_rows,), optional

        Returns
        -------
        self
        """
        self._check_params()
        if isinstance(model, DAG) and not isinstance(model, DiscreteBayesianNetwork):
            bn = DiscreteBayesianNetwork(model.edges(), latents=set(getattr(model, "latents", set())))
            bn.add_nodes_from(model.nodes())
            model = bn
        if not isinstance(model, DiscreteBayesianNetwork):
            raise NotImplementedError(f"LatentEM is implemented for DAG and DiscreteBayesianNetwork, got "
                                      f"{type(model).__name__}.")
        check_pgmpy_data(self, data)
        declared = set(model.latents)
        absent = {v for v in model.nodes() if v not in declared and v not in data.columns}
        empty = {v for v in model.nodes() if v not in declared | absent and data[v].isna().all()}
        latents = declared | absent | empty
        if len(latents) != 1:
            why = "; ".join(f"{what} {sorted(map(str, nodes))}" for what, nodes in (
                ("in model.latents:", declared), ("absent from the data:", absent),
                ("all missing in the data:", empty)) if nodes) or "none"
            raise ValueError(f"LatentEM needs exactly one latent node (one node in model.latents, or absent or "
                             f"all missing in the data); this model and data give {len(latents)} ({why}). Give the "
                             "observed nodes a column each, or for several latent nodes use "
                             "pgmpy.parameter_estimator.DiscreteEM.")
        (H,) = latents
        observed = [v for v in model.nodes() if v != H]
        frame = data[observed]
        na = frame.isna().to_numpy()
        if na.any():
            r, c = (int(v[0]) for v in np.nonzero(na))
            raise ValueError(f"column {observed[c]!r} is missing at row {frame.index[r]!r}; LatentEM needs the "
                             "observed nodes complete (pgmpy's DiscreteEM would drop the row silently). Drop or "
                             "impute incomplete rows, or for a latent-class model use "
                             "pgmpy_ext.clustering.LatentClassEM, which sums missing cells out exactly.")
        given = dict(self.state_names or {})
        enc = encode(frame, states={v: given[v] for v in observed if v in given})
        card = (self.latent_card.get(H, 2) if isinstance(self.latent_card, dict)
                else 2 if self.latent_card is None else self.latent_card)
        check_params(None, {"latent_card": [Interval(numbers.Integral, 1, None)]}, {"latent_card": card})
        h_states = list(given.get(H, range(int(card))))
        if len(h_states) != int(card):
            raise ValueError(f"state_names gives {len(h_states)} states for the latent node {H!r} and latent_card "
                             f"{card}.")
        self.state_names_ = {**enc.state_names, H: h_states}
        parents = {v: sorted_parents(model.get_parents(v)) for v in model.nodes()}
        cards = {**{c: int(k) for c, k in zip(enc.columns, enc.cards)}, H: int(card)}
        layout = NetworkLayout.build(parents, cards, list(enc.columns), H)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
        if w is not None and w.shape != (enc.n_rows,):
            raise ValueError(f"sample_weight has {w.shape[0]} entries for {enc.n_rows} rows.")
        u = unique_rows(enc.codes, enc.cards, weights=w)
        rng = check_generator(self.random_state)
        probs = self._initial(layout, model, H, rng)
        from pgmpy_ext._compat import show_progress_enabled

        fit = iterate(_LatentEMSteps(layout, u, float(self.alpha), self._log), probs, tol=float(self.tol),
                      max_iter=int(self.max_iter), criterion="params",
                      progress="LatentEM iterations" if show_progress_enabled(self.show_progress) else None)
        probs = fit.params
        if not fit.converged and self.max_iter > 0:
            warnings.warn(f"LatentEM did not converge in max_iter={self.max_iter} iterations (tol={self.tol}).",
                          ConvergenceWarning, stacklevel=2)
        self.ll_trace_ = fit.trace
        self.n_iter_ = fit.n_iter
        self.converged_ = fit.converged
        self._model = model
        cpds = cpds_from_layout(layout, probs, self.state_names_)
        order = {v: i for i, v in enumerate(model.nodes())}
        self.parameters_ = sorted(cpds, key=lambda c: order[c.variable])
        return self

    def _log(self, probs: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(probs, self.min_prob)) if self.min_prob > 0 else np.log(probs)

    def _initial(self, layout: NetworkLayout, model, H, rng: np.random.Generator) -> np.ndarray:
        """Starting CPDs: the given ones, Dirichlet(1) columns for the latent node and its children otherwise, the
        uniform table elsewhere (those nodes' M step does not depend on the start)."""
        init = {} if self.init_cpds in (None, "random") else dict(self.init_cpds)
        free = {H, *model.get_children(H)}
        tables = []
        for v, shape in zip(layout.nodes, layout.block_shapes):
            if v in init:
                cpd = init[v]
                if not isinstance(cpd, TabularCPD) or cpd.variable != v:
                    raise ValueError(f"init_cpds[{v!r}] must be a TabularCPD of {v!r}.")
                evidence = list(layout.families[layout.nodes.index(v)][1:])
                cpd = cpd.copy()
                if list(cpd.variables[1:]) != evidence:
                    cpd.reorder_parents(evidence) if evidence else None
                cpd.state_names = dict(cpd.state_names)
                values = self._reorder_states(cpd, layout, v)
                if values.size != int(np.prod(shape)):
                    raise ValueError(f"init_cpds[{v!r}] has {values.size} entries, the model needs shape {shape}.")
                tables.append(values.reshape(shape))
            elif v in free:
                tables.append(dirichlet_tables(rng, [(shape[0], int(np.prod(shape[1:])))])[0].reshape(shape))
            else:
                tables.append(np.full(shape, 1.0 / shape[0]))
        return layout.pack(tables)

    def _reorder_states(self, cpd: TabularCPD, layout: NetworkLayout, v) -> np.ndarray:
        """The CPD's values with every axis in ``state_names_`` order."""
        values = cpd.values
        for axis, var in enumerate(cpd.variables):
            have = list(cpd.state_names.get(var, range(values.shape[axis])))
            want = list(self.state_names_[var])
            if have != want:
                try:
                    idx = [have.index(s) for s in want]
                except ValueError as err:
                    raise ValueError(f"init_cpds[{v!r}]: states of {var!r} are {have}, the data's are {want}.") from err
                values = np.take(values, idx, axis=axis)
        return np.ascontiguousarray(values)
