"""Batch posteriors of one variable of any ``DiscreteBayesianNetwork`` given all the others, through the kernels.

:func:`compile_network` turns the CPDs of a pgmpy model (any evidence order inside the CPDs, any state order and
types, any hashable node names) into a :class:`~pgmpy_ext.stats.NetworkLayout` plus a flat log-CPT buffer, once.
:class:`BatchPosterior` then answers ``P(target | every other node)`` for all rows of a DataFrame at once. The
target can be an observed node (a classifier's class) or a latent one that never appears in the data (a
clustering variable): the machinery is the same, the target is never read from the data.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.data import EncodedData, encode, state_key, to_python
from pgmpy_ext.models._marginal import marginal_log_joint
from pgmpy_ext.stats import NetworkLayout, log_joint_batch, posterior_batch
from pgmpy_ext.utils import logsumexp_rows
from pgmpy_ext.utils.validation import check_option

__all__ = ["CompiledNetwork", "compile_network", "compile_tables", "BatchPosterior"]


@dataclass(eq=False)
class CompiledNetwork:
    """The CPDs of a network in the kernels' flat layout, with the states that give the codes their meaning.

    Attributes
    ----------
    layout : NetworkLayout
        ``layout.hidden`` is the target; ``layout.columns`` the order of the code-matrix columns.
    log_cpt : numpy.ndarray of float64, shape (layout.size,)
        Natural-log CPT entries; block ``v`` is C-order over ``layout.families[v]`` (the CPD's own axis order).
    states : dict
        ``{variable: list of states}``; code ``k`` of a variable means ``states[variable][k]``. The order is the
        one in the variable's own CPD; CPDs that list a parent's states in another order are permuted to it.
    """

    layout: NetworkLayout
    log_cpt: np.ndarray
    states: dict

    @property
    def target(self):
        return self.layout.hidden

    @property
    def columns(self) -> list:
        return list(self.layout.columns)

    def tables(self) -> dict:
        """``{node: probability table}`` shaped like each family (copies)."""
        return self.layout.unpack(self.log_cpt, exp=True)


def _cpd_of(model, node, by_node=None) -> TabularCPD:
    cpd = model.get_cpds(node) if by_node is None else by_node.get(node)
    if cpd is None:
        raise ValueError(f"node {node!r} has no CPD; add CPDs to the model (model.add_cpds or model.fit) first.")
    if not isinstance(cpd, TabularCPD):
        raise TypeError(f"the CPD of {node!r} is a {type(cpd).__name__}; only TabularCPD is supported.")
    return cpd


def compile_network(model: DiscreteBayesianNetwork, target, *, columns: Sequence | None = None) -> CompiledNetwork:
    """Compile the CPDs of ``model`` for batch queries about ``target``.

    Parameters
    ----------
    model : DiscreteBayesianNetwork
        Every node needs a ``TabularCPD``.
    target : hashable
        The query variable ``H`` (a node of ``model``): the class of a classifier or a latent variable.
    columns : sequence, optional
        Labels of the code-matrix columns. Default: every node except ``target``, in ``model.nodes()`` order.
        It must contain every node except ``target`` and may contain other labels (even ``target``), which the
        kernels ignore: pass ``data.columns`` to run directly on an :class:`EncodedData` whose states follow
        ``states`` (e.g. a classifier's encoder).

    Returns
    -------
    CompiledNetwork

    Examples
    --------
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
    >>> bn = DiscreteBayesianNetwork([("C", "A")])
    >>> bn.add_cpds(TabularCPD("C", 2, [[0.5], [0.5]], state_names={"C": ["n", "y"]}),
    ...             TabularCPD("A", 2, [[0.9, 0.2], [0.1, 0.8]], evidence=["C"], evidence_card=[2],
    ...                        state_names={"A": [0, 1], "C": ["n", "y"]}))
    >>> net = compile_network(bn, "C")
    >>> net.columns, net.layout.families, net.log_cpt.shape
    (['A'], (('C',), ('A', 'C')), (6,))
    """
    if not isinstance(model, DiscreteBayesianNetwork):
        raise TypeError(f"model must be a pgmpy DiscreteBayesianNetwork, got {type(model).__name__}.")
    nodes = list(model.nodes())
    if target not in model.nodes():
        raise ValueError(f"target {target!r} is not a node of the model (nodes: {nodes!r}).")
    by_node = {}  # one pass over model.cpds (pgmpy's get_cpds(node) scans the list: quadratic for many nodes)
    for cpd in model.cpds:
        by_node.setdefault(cpd.variable, cpd)
    cpds = {n: _cpd_of(model, n, by_node) for n in nodes}
    states = {}
    for n, cpd in cpds.items():
        sn = cpd.state_names.get(n) if cpd.state_names else None
        st = list(range(int(cpd.cardinality[0]))) if sn is None else [to_python(s) for s in sn]
        if len({state_key(s) for s in st}) != len(st):
            raise ValueError(f"the states of {n!r} are not distinct: {st!r}.")
        states[n] = st
    families, tables, cards = {}, {}, {n: len(s) for n, s in states.items()}
    for n, cpd in cpds.items():
        variables = list(cpd.variables)
        if variables[0] != n:
            raise ValueError(f"the CPD of {n!r} is over {variables!r}; its first variable must be {n!r}.")
        values = np.asarray(cpd.values, dtype=np.float64)
        if values.ndim != len(variables):
            values = values.reshape([int(c) for c in cpd.cardinality])
        for axis, var in enumerate(variables):
            if var not in states:
                raise ValueError(f"the CPD of {n!r} has evidence {var!r}, which is not a node of the model.")
            if values.shape[axis] != cards[var]:
                raise ValueError(f"the CPD of {n!r} gives {var!r} cardinality {values.shape[axis]}, but the CPD of "
                                 f"{var!r} has {cards[var]} states.")
            sn = cpd.state_names.get(var) if cpd.state_names else None
            if sn is None:
                continue
            here = [state_key(to_python(s)) for s in sn]
            ref = [state_key(s) for s in states[var]]
            if here != ref:
                pos = {k: i for i, k in enumerate(here)}
                if set(pos) != set(ref):
                    raise ValueError(f"the CPD of {n!r} lists the states of {var!r} as {list(sn)!r}, but the CPD of "
                                     f"{var!r} has {states[var]!r}.")
                values = np.take(values, [pos[k] for k in ref], axis=axis)
        families[n] = tuple(variables[1:])
        tables[n] = values
    cols = [n for n in nodes if n != target] if columns is None else list(columns)
    col_set = set(cols)  # not `in cols`: a list scan per node is quadratic on thousands of nodes
    absent = [n for n in nodes if n != target and n not in col_set]
    if absent:
        raise ValueError(f"columns must contain every node except the target {target!r}; missing: {absent!r}.")
    layout = NetworkLayout.build(families, cards, cols, target)
    return CompiledNetwork(layout, layout.pack(tables, log=True), states)


def compile_tables(tables, target, *, columns: Sequence | None = None) -> CompiledNetwork:
    """:func:`compile_network` of ``tables.to_network()`` (a :class:`~pgmpy_ext.models.NetworkTables`), without
    building the pgmpy model: the same layout (blocks in node order, parents in evidence order) and the same
    log-CPT numbers, bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> from pgmpy_ext.models import NetworkTables
    >>> nt = NetworkTables(["C", "A"], {"C": [], "A": ["C"]}, {"C": ["n", "y"], "A": [0, 1]},
    ...                    {"C": np.array([[0.5], [0.5]]), "A": np.array([[0.9, 0.2], [0.1, 0.8]])})
    >>> net = compile_tables(nt, "C")
    >>> bool((net.log_cpt == compile_network(nt.to_network(), "C").log_cpt).all())
    True
    """
    if target not in tables.parents:
        raise ValueError(f"target {target!r} is not a node of the model (nodes: {tables.nodes!r}).")
    nodes = tables.nodes
    states = dict(zip(nodes, map(list, map(tables.states.__getitem__, nodes))))
    cards = dict(zip(nodes, map(len, states.values())))
    cols = [n for n in nodes if n != target] if columns is None else list(columns)
    col_set = set(cols)
    if not col_set.issuperset(nodes) and not (col_set | {target}).issuperset(nodes):
        absent = [n for n in nodes if n != target and n not in col_set]
        raise ValueError(f"columns must contain every node except the target {target!r}; missing: {absent!r}.")
    parents = tables.parents
    layout = NetworkLayout.build(parents if list(parents) == nodes else {n: parents[n] for n in nodes}, cards, cols,
                                 target)
    blocks = list(map(tables.tables.__getitem__, nodes))
    sizes = np.fromiter([b.size for b in blocks], dtype=np.intp, count=len(blocks))
    if not np.array_equal(sizes, np.diff(layout.tab_offsets)):  # layout.pack's check, for every table at once
        return CompiledNetwork(layout, layout.pack(blocks, log=True), states)
    flat = np.concatenate(blocks, axis=None) if blocks else np.zeros(0)  # (axis=None: each flattened, C order)
    with np.errstate(divide="ignore"):
        np.log(flat, out=flat)
    return CompiledNetwork(layout, flat, states)


class BatchPosterior:
    """``P(target | all other nodes)`` for many rows at once, from any fitted ``DiscreteBayesianNetwork``.

    The CPDs are compiled once (:func:`compile_network`); each query encodes the rows with the CPDs' state names
    and runs one vectorised kernel pass (``pgmpy_ext.stats.posterior_batch``) instead of one pgmpy
    ``VariableElimination`` query per row. The answer is the same: the product of all CPDs at the row's values,
    normalised over the target.

    Parameters
    ----------
    model : DiscreteBayesianNetwork
        A model whose nodes all have a ``TabularCPD``; CPD evidence order, state order and state types are free.
    target : hashable
        The query node: an observed class, or a latent variable absent from the data (e.g. the cluster variable
        of a latent-class model).
    missing : {"error", "skip"}, default "error"
        ``"error"``: every non-target node must be observed in every row. ``"skip"``: a missing cell (NaN/None) is
        summed out exactly (:func:`pgmpy_ext.models.marginal_log_joint`: the forest kernel for networks whose nodes
        have at most one parent besides the target, variable elimination per missingness pattern otherwise), so
        the posterior equals pgmpy's ``VariableElimination`` with that node left out of the evidence.
    n_jobs : int, default 1
        Threads over row blocks in the kernel (results are bit-identical for every value).

    Attributes
    ----------
    compiled : CompiledNetwork
    classes : list
        The states of ``target`` in its CPD's order: the column order of every (n_rows, K) result.
    features : list
        The nodes read from the data (every node except ``target``), in code-matrix order.
    states : dict
        ``{node: list of states}`` used to encode the data.

    See Also
    --------
    pgmpy.inference.VariableElimination : the per-query reference this class agrees with.

    Notes
    -----
    .. math:: P(t \\mid x) = \\frac{\\prod_v P(x_v \\mid \\mathrm{pa}_v)\\big|_{T=t}}
              {\\sum_{t'} \\prod_v P(x_v \\mid \\mathrm{pa}_v)\\big|_{T=t'}}

    computed in log space with the max subtracted. Rows with probability zero under the model for every target
    state get NaN posteriors and a ``RuntimeWarning``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
    >>> bn = DiscreteBayesianNetwork([("C", "A")])
    >>> bn.add_cpds(TabularCPD("C", 2, [[0.5], [0.5]], state_names={"C": ["n", "y"]}),
    ...             TabularCPD("A", 2, [[0.9, 0.2], [0.1, 0.8]], evidence=["C"], evidence_card=[2],
    ...                        state_names={"A": [0, 1], "C": ["n", "y"]}))
    >>> bp = BatchPosterior(bn, "C")
    >>> bp.classes
    ['n', 'y']
    >>> bp.predict_proba(pd.DataFrame({"A": [0, 1, 1]})).round(4).tolist()
    [[0.8182, 0.1818], [0.1111, 0.8889], [0.1111, 0.8889]]
    >>> bp.predict(pd.DataFrame({"A": [0, 1]})).tolist()
    ['n', 'y']
    """

    def __init__(self, model: DiscreteBayesianNetwork, target, *, missing: str = "error", n_jobs: int = 1):
        check_option(missing, "missing", ("error", "skip"))
        self.model = model
        self.target = target
        self.missing = missing
        self.n_jobs = n_jobs
        self.compiled = compile_network(model, target)
        self.states = self.compiled.states
        self.classes = list(self.states[target])
        self.features = self.compiled.columns

    # ------------------------------------------------------------------ encoding
    def encode(self, X) -> np.ndarray:
        """int32 codes ``(n_rows, len(features))`` of a DataFrame or an :class:`EncodedData`.

        DataFrame cells are matched to the CPDs' state names (``1`` matches ``1`` and ``1.0`` but not ``"1"`` or
        ``True``); other columns (the target included) are ignored. An ``EncodedData`` is recoded from its own
        states to the model's.

        Raises
        ------
        ValueError
            A feature column is absent, or holds a value that is not a state of that node in the model (the
            message names the column, the value, the row and the known states), or a missing cell under
            ``missing="error"``.
        """
        if isinstance(X, EncodedData):
            return self._recode(X)
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame or an EncodedData, got {type(X).__name__}.")
        absent = [c for c in self.features if c not in X.columns]
        if absent:
            raise ValueError(f"the data lacks columns {absent!r}; P({self.target!r} | ...) needs every node except "
                             f"the target (features: {self.features!r}).")
        if X.shape[0] == 0:
            return np.zeros((0, len(self.features)), dtype=np.int32)
        codes = self._category_codes(X)
        if codes is not None:
            return codes
        # float columns go through object dtype so that declared float states such as 1.5 are matched, not
        # rejected as "continuous" by the encoder (the states are declared, so nothing is being discretised).
        frame = pd.DataFrame({k: (X[c].astype(object) if pd.api.types.is_float_dtype(X[c].dtype) else X[c])
                              for k, c in enumerate(self.features)})
        declared = {k: self.states[c] for k, c in enumerate(self.features)}
        try:
            enc = encode(frame, states=declared, missing=self.missing)
        except ValueError as err:
            msg = str(err)
            m = re.match(r"Column (\d+) ", msg)
            if m:  # the encoder names our positional column; name the node instead
                msg = f"Column {self.features[int(m.group(1))]!r} " + msg[m.end():]
            msg = msg.replace("that was not seen during fit", "that is not a state of this node in the model")
            raise ValueError(msg) from None
        return enc.codes

    def _category_codes(self, X: pd.DataFrame) -> np.ndarray | None:
        """Fast path of :meth:`encode`: when every feature column is a pandas Categorical whose categories are the
        node's states in the same order (as in a frame the model was fitted on), its codes already are the state
        codes, so they are taken as they are (no per-value matching). Returns None, so that the general encoder
        runs, for anything else and for frames with a missing cell (whose error message, or ``missing="skip"``
        handling, is the general encoder's)."""
        keys = self.__dict__.get("_state_keys")
        if keys is None:  # computed once; not in __init__ so that older pickles keep working
            keys = self._state_keys = {c: [state_key(s) for s in self.states[c]] for c in self.features}
        cols = []
        for c in self.features:
            s = X[c]
            if not isinstance(s, pd.Series) or not isinstance(s.dtype, pd.CategoricalDtype):
                return None
            cats = s.dtype.categories
            if len(cats) != len(keys[c]) or [state_key(to_python(v)) for v in cats] != keys[c]:
                return None
            cols.append(s.array.codes)
        if not cols:
            return None
        stacked = np.stack(cols)  # (n_features, n_rows), int8/int16 codes
        if stacked.min() < 0:
            return None
        return np.ascontiguousarray(stacked.T, dtype=np.int32)

    def _recode(self, data: EncodedData) -> np.ndarray:
        out = np.empty((data.n_rows, len(self.features)), dtype=np.int32)
        for j, c in enumerate(self.features):
            try:
                k = data.index(c)
            except KeyError:
                raise ValueError(f"the data lacks column {c!r}; P({self.target!r} | ...) needs every node except the "
                                 f"target (features: {self.features!r}).") from None
            src = [state_key(s) for s in data.states[k]]
            ref = {state_key(s): i for i, s in enumerate(self.states[c])}
            col = data.codes[:, k]
            if src == list(ref):
                out[:, j] = col
                continue
            remap = np.array([ref.get(s, -1) for s in src], dtype=np.int32)
            new = np.where(col >= 0, remap[np.maximum(col, 0)], -1)
            bad = np.flatnonzero((new < 0) & (col >= 0))
            if bad.size:
                r = int(bad[0])
                raise ValueError(f"Column {c!r} has value {data.states[k][col[r]]!r} at row {r} that is not a state "
                                 f"of this node in the model (known: {self.states[c]!r}).")
            out[:, j] = new
        if self.missing == "error" and (out < 0).any():
            r, j = (int(v[0]) for v in np.nonzero(out < 0))
            raise ValueError(f"Column {self.features[j]!r} has a missing value at row {r}; BatchPosterior(missing="
                             "'error') needs complete rows (use missing='skip' to sum out missing leaves).")
        return out

    # ------------------------------------------------------------------ queries
    def log_joint(self, X) -> np.ndarray:
        """``log P(target = k, x_r)`` (natural log), shape ``(n_rows, K)``, columns in ``classes`` order."""
        codes = self.encode(X)
        if self.missing == "skip" and (codes < 0).any():
            return marginal_log_joint(self.compiled.layout, self.compiled.log_cpt, codes, n_jobs=self.n_jobs)
        return log_joint_batch(self.compiled.layout, self.compiled.log_cpt, codes, n_jobs=self.n_jobs)

    def _posterior(self, X):
        codes = self.encode(X)
        if self.missing == "skip" and (codes < 0).any():
            lj = marginal_log_joint(self.compiled.layout, self.compiled.log_cpt, codes, n_jobs=self.n_jobs)
            ll = logsumexp_rows(lj)
            with np.errstate(invalid="ignore"):  # a row impossible under every state: NaN, as the kernel gives
                resp = np.exp(lj - ll[:, None])
        else:
            resp, ll = posterior_batch(self.compiled.layout, self.compiled.log_cpt, codes, n_jobs=self.n_jobs)
        n_zero = int(np.isneginf(ll).sum())
        if n_zero:
            warnings.warn(f"{n_zero} row(s) have probability 0 under the model for every state of {self.target!r}; "
                          "their posterior is NaN.", RuntimeWarning, stacklevel=3)
        return resp, ll

    def predict_proba(self, X) -> np.ndarray:
        """``P(target = k | x_r)``, shape ``(n_rows, K)``; rows sum to 1, columns in ``classes`` order."""
        return self._posterior(X)[0]

    def log_proba(self, X) -> np.ndarray:
        """``log P(target = k | x_r)``, shape ``(n_rows, K)`` (``-inf`` where the posterior is 0)."""
        lj = self.log_joint(X)
        with np.errstate(invalid="ignore"):  # a row impossible under every state: -inf - -inf = NaN
            return lj - logsumexp_rows(lj)[:, None]

    def log_likelihood(self, X) -> np.ndarray:
        """``log P(x_r)`` with the target summed out, shape ``(n_rows,)`` (natural log)."""
        return self._posterior(X)[1]

    def predict(self, X) -> np.ndarray:
        """Most probable target state per row (ties: the first in ``classes``), an object array of labels."""
        proba = self.predict_proba(X)
        labels = np.empty(len(self.classes), dtype=object)
        labels[:] = self.classes
        return labels[np.argmax(np.nan_to_num(proba, nan=-1.0), axis=1)]

    def __repr__(self) -> str:
        return (f"BatchPosterior(target={self.target!r}, K={len(self.classes)}, n_features={len(self.features)}, "
                f"missing={self.missing!r})")
