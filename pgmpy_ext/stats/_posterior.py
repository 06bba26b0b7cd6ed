"""Compiled networks and the posterior kernels: joint/posterior/E-step/CLL over one hidden or class variable.

A :class:`NetworkLayout` turns ``{node: parents in table order}`` plus cardinalities, the columns of the code matrix
and the hidden/class variable ``H`` into the flat arrays that ``pgmpy_ext._core._posterior`` works on, and packs
per-node tables into (and out of) the flat CPT buffer. The wrappers below validate and allocate, then call the
kernels. Layouts are documented in ``cython_core/_posterior.pyx``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, repeat

import numpy as np

from pgmpy_ext._core import _posterior
from pgmpy_ext.data import EncodedData, kernel_codes
from pgmpy_ext.stats._layout import BlockLayout
from pgmpy_ext.utils.validation import effective_n_threads, threads_for_rows

__all__ = ["HIDDEN", "NetworkLayout", "EStepResult", "CLLResult", "log_joint_batch", "posterior_batch",
           "estep_accumulate", "conditional_log_likelihood", "ColumnPlan", "log_joint_columns"]

#: Entry of ``NetworkLayout.fam_cols`` that stands for the hidden/class variable (it is not a column of ``X``).
HIDDEN: int = int(_posterior.HIDDEN)


def _as_intp(values) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=np.intp))


@dataclass(frozen=True, eq=False)
class NetworkLayout(BlockLayout):
    """Flat description of a discrete network with one hidden/class variable ``H``, as the posterior kernels need it.

    Build it with :meth:`NetworkLayout.build`. Node ``v`` (``nodes[v]``) has the family ``families[v] =
    (node, *parents)`` in the order of its CPT's axes; its table is the block
    ``flat[tab_offsets[v]:tab_offsets[v+1]]``, C-order over the family, so ``block.reshape(card_node, -1)`` is
    ``TabularCPD.get_values()`` with ``evidence=parents`` in that order. It is a
    :class:`~pgmpy_ext.stats._layout.BlockLayout` (block ``v`` is node ``v``'s table: ``block_offsets`` are
    ``tab_offsets``, ``block_shapes`` the family shapes), whose size, packing and M-step it uses through the
    node-keyed :meth:`block`, :meth:`pack`, :meth:`unpack` and :meth:`normalize`.

    Attributes
    ----------
    nodes : tuple
        Node labels, one block each, in block order.
    families : tuple of tuple
        ``families[v] = (nodes[v], *parents)`` in table order.
    hidden : hashable
        Label of ``H``.
    hidden_card : int
        ``K``, the cardinality of ``H``.
    columns : tuple
        Labels of the columns of the code matrix ``X`` (``X[:, k]`` holds ``columns[k]``). It may contain labels
        that are no node (ignored) and even ``hidden`` itself (ignored too: ``H`` is never read from ``X``).
    cards : dict
        ``{variable: cardinality}`` of every family member.
    fam_offsets : intp (V + 1,)
    fam_cols : intp (F,)
        Column of ``X`` of each family member, :data:`HIDDEN` (-1) for ``H``.
    fam_cards : intp (F,)
    fam_strides : intp (F,)
        C-order stride of each family member within its block.
    tab_offsets : intp (V + 1,)
    h_stride : intp (V,)
        Stride of ``H`` in each block (0 when ``H`` is not in the family).

    Examples
    --------
    Naive Bayes with class ``C`` (K = 2) and features ``A`` (3 states) and ``B`` (2 states) stored in columns
    0 and 1 of ``X``:

    >>> lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["C"]}, {"C": 2, "A": 3, "B": 2}, ["A", "B"], "C")
    >>> lay.fam_cols.tolist(), lay.tab_offsets.tolist(), lay.h_stride.tolist()
    ([-1, 0, -1, 1, -1], [0, 2, 8, 12], [1, 1, 1])
    >>> lay.size
    12
    """

    nodes: tuple
    families: tuple
    hidden: Hashable
    hidden_card: int
    columns: tuple
    cards: dict
    fam_offsets: np.ndarray
    fam_cols: np.ndarray
    fam_cards: np.ndarray
    fam_strides: np.ndarray
    tab_offsets: np.ndarray
    h_stride: np.ndarray

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, parents: Mapping, cards: Mapping, columns: Sequence | Mapping, hidden) -> NetworkLayout:
        """Compile ``{node: parents in table order}`` into the flat layout.

        Parameters
        ----------
        parents : mapping
            ``{node: sequence of parents}``; the order of the parents is the order of the table axes after the
            node itself (pgmpy's estimators use ``sorted(parents)``). Blocks follow the mapping's order.
        cards : mapping
            ``{variable: cardinality}`` for every node, parent and ``hidden``.
        columns : sequence or mapping
            Labels of the code-matrix columns in order (``columns[k]`` is column ``k``), or ``{label: column}``.
            Every variable except ``hidden`` must have a column.
        hidden : hashable
            The hidden/class variable ``H``. It may or may not have a block of its own.

        Raises
        ------
        ValueError
            A variable without a cardinality or a column, a node that is its own parent, repeated parents, a
            cardinality < 1.
        """
        if isinstance(columns, Mapping):
            col_of = {k: int(v) for k, v in columns.items()}
            n_cols = max(col_of.values(), default=-1) + 1
            labels = [None] * n_cols
            for k, v in col_of.items():
                labels[v] = k
            columns_t = tuple(labels)
        else:
            columns_t = tuple(columns)
            col_of = dict(zip(columns_t, range(len(columns_t))))
            if len(col_of) != len(columns_t):
                seen = set()
                c = next(c for c in columns_t if c in seen or seen.add(c))
                raise ValueError(f"column label {c!r} appears twice in columns.")
        if hidden not in cards:
            raise ValueError(f"cards has no cardinality for the hidden/class variable {hidden!r}.")
        K = int(cards[hidden])
        if K < 1:
            raise ValueError(f"cardinality of {hidden!r} == {K}, must be >= 1.")
        # One lean pass over the nodes (families, checks), then every stride and offset at once: a 7,070-gene
        # naive Bayes has 7,071 families.
        nodes = list(parents)
        families = [(node, *pa) for node, pa in parents.items()]
        sizes = list(map(len, families))
        flat = list(chain.from_iterable(families))
        col_of_h = col_of  # (a dict of this call: the hidden variable is never a column, it gets its own code)
        col_of_h[hidden] = HIDDEN
        fam_cols = np.fromiter(map(col_of_h.get, flat, repeat(-2, len(flat))), dtype=np.intp, count=len(flat))
        fam_offsets = np.zeros(len(families) + 1, dtype=np.intp)
        np.cumsum(sizes, out=fam_offsets[1:])
        fam_of = np.repeat(np.arange(len(families), dtype=np.intp), sizes)
        # a node among its own parents, repeated parents: where the family's columns say so (one comparison over
        # every family member), or, when a variable has no column, the families checked one by one
        child_col = fam_cols[fam_offsets[:-1]][fam_of]
        member = np.arange(len(flat), dtype=np.intp) != fam_offsets[:-1][fam_of]
        suspect = (fam_cols == -2).any() or bool((member & (fam_cols == child_col)).any())
        for v in (range(len(families)) if suspect else np.flatnonzero(np.asarray(sizes) > 2).tolist()):
            fam = families[v]
            if len(fam) > 1 and fam[0] in fam[1:]:
                raise ValueError(f"node {fam[0]!r} cannot be its own parent.")
            if len(fam) > 2 and len(set(fam)) != len(fam):
                raise ValueError(f"node {fam[0]!r} has repeated parents: {list(fam[1:])!r}.")
        try:
            fam_cards = np.fromiter(map(cards.__getitem__, flat), dtype=np.intp, count=len(flat))
        except KeyError:
            j = next(j for j, var in enumerate(flat) if var not in cards)
            raise ValueError(f"cards has no cardinality for {flat[j]!r} (family of {nodes[fam_of[j]]!r}).") from None
        if (fam_cards < 1).any():
            j = int(np.flatnonzero(fam_cards < 1)[0])
            raise ValueError(f"cardinality of {flat[j]!r} == {int(fam_cards[j])}, must be >= 1.")
        fcards = fam_cards.tolist()
        if (fam_cols == -2).any():
            j = int(np.flatnonzero(fam_cols == -2)[0])
            raise ValueError(f"variable {flat[j]!r} (family of {nodes[fam_of[j]]!r}) is neither the hidden/class "
                             f"variable {hidden!r} nor a column of X (columns: {list(columns_t)!r}).")
        size_of = np.asarray(sizes, dtype=np.intp)
        pos = np.arange(fam_cards.shape[0], dtype=np.intp) - fam_offsets[:-1][fam_of]
        fam_strides = np.ones(fam_cards.shape[0], dtype=np.intp)
        for k in range(1, int(size_of.max(initial=0))):  # stride: the product of the cards after the member
            idx = np.flatnonzero(pos + k < size_of[fam_of])
            fam_strides[idx] *= fam_cards[idx + k]
        h_stride = np.zeros(len(families), dtype=np.intp)
        hid = np.flatnonzero(fam_cols == HIDDEN)
        h_stride[fam_of[hid]] = fam_strides[hid]
        tab_offsets = np.zeros(len(families) + 1, dtype=np.intp)
        if families:
            np.cumsum(fam_strides[fam_offsets[:-1]] * fam_cards[fam_offsets[:-1]], out=tab_offsets[1:])
        used_cards = dict(zip(flat, fcards))
        used_cards.setdefault(hidden, K)
        return cls(tuple(nodes), tuple(families), hidden, K, columns_t, used_cards, fam_offsets, fam_cols,
                   fam_cards, fam_strides, tab_offsets, h_stride)

    # ------------------------------------------------------------------ facts
    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    def node_index(self, node) -> int:
        try:
            return self.nodes.index(node)
        except ValueError:
            raise KeyError(f"{node!r} is not a node of this layout (nodes: {list(self.nodes)!r}).") from None

    def block_shape(self, node) -> tuple:
        """Shape of ``node``'s table: the cardinalities of its family in table order."""
        return self.block_shapes[self.node_index(node)]

    def kernel_args(self) -> tuple:
        """``(fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride)`` in kernel order."""
        return (self.fam_offsets, self.fam_cols, self.fam_cards, self.fam_strides, self.tab_offsets, self.h_stride)

    # ------------------------------------------------------------------ flat buffer <-> per-node tables
    # (the BlockLayout protocol, keyed by node: block v is node v's table, shaped like its family)
    @property
    def block_offsets(self) -> np.ndarray:
        return self.tab_offsets

    @cached_property
    def block_shapes(self) -> tuple:
        return tuple(tuple(int(c) for c in self.fam_cards[self.fam_offsets[v]:self.fam_offsets[v + 1]])
                     for v in range(self.n_nodes))

    def block(self, flat: np.ndarray, node) -> np.ndarray:
        """View of ``node``'s block in ``flat`` shaped like its family (writes go through to ``flat``)."""
        return self.block_at(flat, self.node_index(node))

    def pack(self, tables, *, log: bool = False) -> np.ndarray:
        """Flat float64 buffer from per-node tables.

        Parameters
        ----------
        tables : mapping or sequence
            ``{node: array}`` or a sequence aligned with ``nodes``. Each array is C-order over the node's family
            in table order, of any shape with the right number of entries (e.g. ``TabularCPD.values`` or
            ``TabularCPD.get_values()`` when the CPD's evidence order is the layout's parent order).
        log : bool, default False
            Store natural logs (``log 0 = -inf``, without a warning): the ``log_cpt`` the kernels take.

        Returns
        -------
        numpy.ndarray of float64, shape (size,)
        """
        if isinstance(tables, Mapping):
            missing = [n for n in self.nodes if n not in tables]
            if missing:
                raise ValueError(f"tables has no entry for nodes {missing!r}.")
            tables = [tables[n] for n in self.nodes]
        return self.pack_blocks(tables, log=log, names=self.nodes)

    def unpack(self, flat: np.ndarray, *, exp: bool = False) -> dict:
        """``{node: table}`` shaped like each family (copies); ``exp=True`` turns a ``log_cpt`` into probabilities."""
        return dict(zip(self.nodes, self.unpack_blocks(flat, exp=exp)))

    # normalize(counts, alpha=0.0, *, log=False): BlockLayout's M-step, per node over its own axis (axis 0 of the
    # family), uniform columns for parent configurations with a zero total (pgmpy's DiscreteMLE rule)

    # ------------------------------------------------------------------ inputs
    def codes_of(self, X, *, narrow: bool = False) -> np.ndarray:
        """C-contiguous int32 code matrix from an ndarray or an :class:`EncodedData` (whose columns must match).

        ``narrow=True`` (for the fused kernels only) keeps int8 / int16 codes as they are
        (:func:`pgmpy_ext.data.kernel_codes`)."""
        if isinstance(X, EncodedData):
            needed = {c for fam in self.families for c in fam if c != self.hidden}
            for c in needed:
                k = self.columns.index(c)
                if k >= X.n_cols or X.columns[k] != c:
                    raise ValueError(f"EncodedData column {k} is {X.columns[k] if k < X.n_cols else None!r}, but "
                                     f"the layout expects {c!r} there; build the layout with columns=data.columns.")
            return X.kernel_codes if narrow else X.codes
        codes = kernel_codes(X) if narrow else np.ascontiguousarray(X, dtype=np.int32)
        if codes.ndim != 2:
            raise ValueError(f"codes must be 2-D (n_rows, n_cols), got shape {codes.shape}.")
        return codes

    def describe_error(self, err) -> str:
        """Rewrite a kernel's :class:`KernelInputError` with node and column labels."""
        node = self.nodes[err.node] if 0 <= err.node < self.n_nodes else err.node
        col = self.columns[err.column] if 0 <= err.column < len(self.columns) else err.column
        if err.kind == "range":
            card = self.cards.get(col)
            known = f"0..{card - 1}" if card is not None else "its cardinality"
            return f"row {err.row}: code {err.code} of {col!r} is outside {known} (family of {node!r})."
        if err.kind == "missing":
            return (f"row {err.row}: {col!r} (family of {node!r}) is missing; complete data is required unless "
                    "skip_missing=True.")
        return (f"row {err.row}: parent {col!r} of {node!r} is missing but {node!r} is not (it is observed or it "
                "is the hidden/class variable); only missing variables whose children are all missing too can be "
                "summed out.")


def _check_log_cpt(layout: NetworkLayout, log_cpt) -> np.ndarray:
    a = layout.check_flat(log_cpt, "log_cpt")
    if np.isnan(a).any() or (a == np.inf).any():
        raise ValueError("log_cpt contains NaN or +inf; it must hold natural logs of probabilities (-inf for 0).")
    return a


def _weights(X, weights, n: int) -> np.ndarray:
    if weights is None and isinstance(X, EncodedData):
        return X.kernel_weights()
    if weights is None:
        return np.empty(0, dtype=np.float64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"weights must be a 1-D array of length n_rows = {n}, got shape {w.shape}.")
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise ValueError("weights must be finite and >= 0.")
    return w



def _call(layout: NetworkLayout, fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except _posterior.KernelInputError as err:
        raise ValueError(layout.describe_error(err)) from None


def log_joint_batch(layout: NetworkLayout, log_cpt, X, *, skip_missing: bool = False,
                    n_jobs: int = 1) -> np.ndarray:
    """``log p(H=h, x_r)`` for every row and every ``h``.

    Parameters
    ----------
    layout : NetworkLayout
    log_cpt : array of float64, shape (layout.size,)
        Natural-log CPT blocks (``layout.pack(tables, log=True)``).
    X : ndarray of int8, int16 or int32 (n_rows, len(layout.columns)) or EncodedData
        Codes, column ``k`` holding ``layout.columns[k]``.
    skip_missing : bool, default False
        False: complete data required. True: a variable coded -1 is summed out by dropping its factor, which
        is exact and allowed only when all its children are missing too (see ``cython_core/_posterior.pyx``).
    n_jobs : int, default 1
        Threads over row blocks; results are bit-identical for every value.

    Returns
    -------
    numpy.ndarray of float64, shape (n_rows, K)

    Examples
    --------
    >>> import numpy as np
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 2, "A": 2}, ["A"], "C")
    >>> log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[0.9, 0.2], [0.1, 0.8]]}, log=True)
    >>> np.exp(log_joint_batch(lay, log_cpt, np.array([[0], [1]]))).round(3).tolist()
    [[0.45, 0.1], [0.05, 0.4]]
    """
    codes = layout.codes_of(X, narrow=True)
    out = np.empty((codes.shape[0], layout.hidden_card), dtype=np.float64)
    _call(layout, _posterior.log_joint_batch, codes, *layout.kernel_args(), _check_log_cpt(layout, log_cpt), out,
          bool(skip_missing), effective_n_threads(n_jobs))
    return out


def posterior_batch(layout: NetworkLayout, log_cpt, X, *, skip_missing: bool = False,
                    n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Posterior ``p(H | x_r)`` and ``log p(x_r)`` of every row.

    Parameters are those of :func:`log_joint_batch`.

    Returns
    -------
    resp : numpy.ndarray of float64, shape (n_rows, K)
        Rows sum to 1; a row with ``p(x_r) = 0`` is NaN.
    loglik : numpy.ndarray of float64, shape (n_rows,)
        ``log p(x_r)`` (``-inf`` when zero).

    Examples
    --------
    >>> import numpy as np
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 2, "A": 2}, ["A"], "C")
    >>> log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[0.9, 0.2], [0.1, 0.8]]}, log=True)
    >>> resp, ll = posterior_batch(lay, log_cpt, np.array([[0], [1]]))
    >>> resp.round(4).tolist(), np.exp(ll).round(3).tolist()
    ([[0.8182, 0.1818], [0.1111, 0.8889]], [0.55, 0.45])
    """
    codes = layout.codes_of(X, narrow=True)
    n = codes.shape[0]
    resp = np.empty((n, layout.hidden_card), dtype=np.float64)
    loglik = np.empty(n, dtype=np.float64)
    _call(layout, _posterior.posterior_batch, codes, *layout.kernel_args(), _check_log_cpt(layout, log_cpt), resp,
          loglik, bool(skip_missing), effective_n_threads(n_jobs))
    return resp, loglik


@dataclass
class EStepResult:
    """Result of :func:`estep_accumulate`.

    Attributes
    ----------
    loglik : float
        ``sum_r w_r log p(x_r)`` (``-inf`` if a row with positive weight has probability 0).
    counts : numpy.ndarray of float64, shape (layout.size,)
        Expected counts in the flat CPT layout (added to the ``counts`` passed in, if any).
    resp : numpy.ndarray of float64, shape (n_rows, K), or None
        Posteriors, when ``return_resp=True``.
    n_zero : int
        Rows with ``p(x_r) = 0`` (their ``resp`` row is NaN; they add no counts).
    """

    loglik: float
    counts: np.ndarray
    resp: np.ndarray | None
    n_zero: int


def estep_accumulate(layout: NetworkLayout, log_cpt, X, weights=None, *, counts: np.ndarray | None = None,
                     return_resp: bool = False, skip_missing: bool = False) -> EStepResult:
    """E-step over ``H``: log-likelihood, posteriors and posterior-weighted expected counts.

    Parameters
    ----------
    layout : NetworkLayout
    log_cpt : array of float64, shape (layout.size,)
    X : ndarray of int8, int16 or int32 (n_rows, n_cols) or EncodedData
        Typically unique rows (``pgmpy_ext.stats.unique_rows``) with their multiplicities as ``weights``.
    weights : array of float64, shape (n_rows,), optional
        Row weights / multiplicities (default: ``X.weights`` for EncodedData, else ones).
    counts : array of float64, shape (layout.size,), optional
        Accumulator: the new expected counts are added into it (in place) and it is returned as
        ``result.counts``; it is left untouched when the kernel raises. Default: a fresh zero buffer.
    return_resp : bool, default False
        Also return the (n_rows, K) posteriors.
    skip_missing : bool, default False
        See :func:`log_joint_batch`; summed-out variables get no expected counts.

    Returns
    -------
    EStepResult

    Notes
    -----
    For every row and node ``v``, ``counts[idx_v(x_r) + h * h_stride[v]] += w_r p(h | x_r)``; families without
    ``H`` receive exactly ``w_r``. Each family's counts therefore sum to the total weight of the rows it saw.
    ``layout.normalize(counts, alpha)`` is the M-step.

    Examples
    --------
    >>> import numpy as np
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 2, "A": 2}, ["A"], "C")
    >>> log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[0.9, 0.2], [0.1, 0.8]]}, log=True)
    >>> res = estep_accumulate(lay, log_cpt, np.array([[0], [1]]), weights=[3.0, 1.0])
    >>> lay.unpack(res.counts)["C"].round(4).tolist(), round(res.loglik, 4)
    ([2.5657, 1.4343], -2.592)
    """
    codes = layout.codes_of(X, narrow=True)
    n = codes.shape[0]
    w = _weights(X, weights, n)
    lc = _check_log_cpt(layout, log_cpt)
    if counts is not None and (not isinstance(counts, np.ndarray) or counts.shape != (layout.size,)
                               or counts.dtype != np.float64):
        raise ValueError(f"counts must be a float64 array of shape ({layout.size},) to accumulate into.")
    fresh = np.zeros(layout.size, dtype=np.float64)
    resp = np.empty((n, layout.hidden_card) if return_resp else (0, layout.hidden_card), dtype=np.float64)
    ll, n_zero = _call(layout, _posterior.estep_accumulate, codes, w, *layout.kernel_args(), layout.hidden_card, lc,
                       fresh, resp, bool(skip_missing))
    if counts is not None:
        counts += fresh
        fresh = counts
    return EStepResult(ll, fresh, resp if return_resp else None, n_zero)


@dataclass
class CLLResult:
    """Result of :func:`conditional_log_likelihood`.

    Attributes
    ----------
    cll : float
        ``sum_r w_r [log p(y_r, x_r) - log p(x_r)]``.
    posterior : numpy.ndarray of float64, shape (n_rows, K), or None
        ``p(h | x_r)`` when ``return_posterior=True``.
    gradient : numpy.ndarray of float64, shape (layout.size,), or None
        ``d cll / d log_cpt`` when ``return_gradient=True``: for families containing the class,
        ``sum_r w_r (1[h = y_r] - p(h | x_r))`` at each row's entry; zero elsewhere.
    n_zero : int
        Rows with ``p(x_r) = 0``.
    """

    cll: float
    posterior: np.ndarray | None
    gradient: np.ndarray | None
    n_zero: int


def conditional_log_likelihood(layout: NetworkLayout, log_cpt, X, y, weights=None, *,
                               return_posterior: bool = False, return_gradient: bool = False,
                               skip_missing: bool = False) -> CLLResult:
    """Conditional log-likelihood of class codes ``y`` given the features, with ``H`` = the class.

    Parameters
    ----------
    layout : NetworkLayout
        ``layout.hidden`` is the class variable.
    log_cpt : array of float64, shape (layout.size,)
    X : ndarray of int8, int16 or int32 (n_rows, n_cols) or EncodedData
        Feature codes (e.g. unique rows of ``(features, class)`` with their multiplicities as ``weights``).
    y : array of int, shape (n_rows,)
        Class codes in ``0..K-1``.
    weights : array of float64, shape (n_rows,), optional
    return_posterior, return_gradient : bool, default False
    skip_missing : bool, default False

    Returns
    -------
    CLLResult

    Notes
    -----
    .. math:: \\mathrm{CLL} = \\sum_r w_r \\Big[\\log p(y_r, x_r) - \\log \\sum_h p(h, x_r)\\Big]

    Examples
    --------
    >>> import numpy as np
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 2, "A": 2}, ["A"], "C")
    >>> log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[0.9, 0.2], [0.1, 0.8]]}, log=True)
    >>> res = conditional_log_likelihood(lay, log_cpt, np.array([[0], [1]]), [0, 1], return_gradient=True)
    >>> round(res.cll, 4), lay.unpack(res.gradient)["C"].round(4).tolist()
    (-0.3185, [0.0707, -0.0707])
    """
    codes = layout.codes_of(X, narrow=True)
    n = codes.shape[0]
    yy = np.ascontiguousarray(y, dtype=np.int32)
    if yy.shape != (n,):
        raise ValueError(f"y must have shape ({n},) (one class code per row), got {yy.shape}.")
    w = _weights(X, weights, n)
    lc = _check_log_cpt(layout, log_cpt)
    resp = np.empty((n, layout.hidden_card) if return_posterior else (0, layout.hidden_card), dtype=np.float64)
    grad = np.zeros(layout.size if return_gradient else 0, dtype=np.float64)
    cll, n_zero = _call(layout, _posterior.conditional_log_likelihood, codes, yy, w, *layout.kernel_args(),
                        layout.hidden_card, lc, resp, grad, bool(skip_missing))
    return CLLResult(cll, resp if return_posterior else None, grad if return_gradient else None, n_zero)


@dataclass(frozen=True, eq=False)
class ColumnPlan:
    """A compiled network in the class-minor layout of the column kernel (``cython_core/_posterior.pyx``,
    "Column kernel"), with its log-CPT entries: what :func:`log_joint_columns` reads.

    Node ``v``'s table holds the entries of its log-CPT block with the ``H`` axis moved last (repeated ``K`` times
    when ``H`` is not in the family), so the ``K`` numbers a row adds for node ``v`` are contiguous. Built once per
    fitted model by :meth:`build`; the numbers are those of ``log_cpt``, only moved, so the kernel's sums are the
    sums of :func:`log_joint_batch`, bit for bit.

    Attributes
    ----------
    node_ptr : intp (V + 1,)
    obs_col, obs_card, obs_stride : intp (F',)
        Per node, its members other than ``H``: code-array index, cardinality, C-order stride without ``H``.
    tab_off : intp (V + 1,)
    tab : float64 (tab_off[-1],)
    hidden_card : int
        ``K``.
    n_columns : int
        ``len(layout.columns)``: how many code arrays a call takes.
    columns_used : intp
        Sorted code-array indices some node reads.
    """

    node_ptr: np.ndarray
    obs_col: np.ndarray
    obs_card: np.ndarray
    obs_stride: np.ndarray
    tab_off: np.ndarray
    tab: np.ndarray
    hidden_card: int
    n_columns: int
    columns_used: np.ndarray

    @classmethod
    def build(cls, layout: NetworkLayout, log_cpt, class_order=None) -> ColumnPlan:
        """The plan of ``layout`` with the entries of ``log_cpt``.

        ``class_order`` (optional, a permutation of ``0..K-1``): class ``h`` of the result is class
        ``class_order[h]`` of the layout (e.g. a classifier's ``classes_`` order), so no column permutation of the
        (n_rows, K) output is needed afterwards.

        Examples
        --------
        >>> lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 2, "A": 3}, ["A"], "C")
        >>> plan = ColumnPlan.build(lay, np.log(np.arange(1.0, 9.0)))
        >>> plan.node_ptr.tolist(), plan.obs_col.tolist(), plan.tab_off.tolist()
        ([0, 0, 1], [0], [0, 2, 8])
        """
        lc = _check_log_cpt(layout, log_cpt)
        K = layout.hidden_card
        order = np.arange(K, dtype=np.intp) if class_order is None else np.asarray(class_order, dtype=np.intp)
        if order.shape != (K,) or not np.array_equal(np.sort(order), np.arange(K)):
            raise ValueError(f"class_order must be a permutation of 0..{K - 1}, got {order.tolist()!r}.")
        # Every node at once (a 7,070-gene naive Bayes has 7,071 nodes): the observed members of each family (all
        # but H) in family order, their C-order strides without H, and for every entry (row of observed values,
        # class h) of the class-minor table the position of its number in log_cpt.
        V = layout.n_nodes
        fam_cols, fam_cards, fam_strides = layout.fam_cols, layout.fam_cards, layout.fam_strides
        node_of = np.repeat(np.arange(V, dtype=np.intp), np.diff(layout.fam_offsets))
        keep = fam_cols != HIDDEN
        obs_node = node_of[keep]
        obs_col = np.ascontiguousarray(fam_cols[keep])
        obs_card = np.ascontiguousarray(fam_cards[keep])
        obs_fam_stride = fam_strides[keep]
        n_obs = np.bincount(obs_node, minlength=V).astype(np.intp)
        node_ptr = np.zeros(V + 1, dtype=np.intp)
        np.cumsum(n_obs, out=node_ptr[1:])
        # stride of member j without H: the product of the observed cards after it in its family
        obs_stride = np.ones(obs_col.shape[0], dtype=np.intp)
        pos = np.arange(obs_col.shape[0], dtype=np.intp) - node_ptr[obs_node]  # position within the node
        for k in range(1, int(n_obs.max(initial=0))):
            later = pos + k < n_obs[obs_node]
            idx = np.flatnonzero(later)
            obs_stride[idx] *= obs_card[idx + k]
        size = np.ones(V, dtype=np.intp)  # rows of observed values per node
        first = node_ptr[:-1][n_obs > 0]
        size[n_obs > 0] = obs_stride[first] * obs_card[first]
        tab_off = np.zeros(V + 1, dtype=np.intp)
        np.cumsum(size * K, out=tab_off[1:])
        entry_node = np.repeat(np.arange(V, dtype=np.intp), size * K)
        q = np.arange(int(tab_off[-1]), dtype=np.intp) - tab_off[entry_node]
        h = q % K
        row = q // K
        src = layout.tab_offsets[:-1][entry_node] + order[h] * layout.h_stride[entry_node]
        for k in range(int(n_obs.max(initial=0))):  # digit k of every entry's row (member k of its node)
            has = np.flatnonzero(n_obs[entry_node] > k)
            j = node_ptr[entry_node[has]] + k
            src[has] += (row[has] // obs_stride[j]) % obs_card[j] * obs_fam_stride[j]
        tab = np.ascontiguousarray(lc[src])
        return cls(node_ptr, obs_col, obs_card, obs_stride, tab_off, tab, K, len(layout.columns), np.unique(obs_col))

    def kernel_args(self) -> tuple:
        return (self.node_ptr, self.obs_col, self.obs_card, self.obs_stride, self.tab_off, self.tab)


def posterior_columns(plan: ColumnPlan, columns: Sequence, *, n_jobs: int = 1, log: bool = False,
                      floor: float | None = None, fix_marked=None) -> np.ndarray:
    """Posteriors ``P(H=h | x_r)`` (or their logs) for every row, read straight from one code array per column:
    :func:`log_joint_columns` and the row normalisation (:func:`pgmpy_ext.utils.log_normalize_rows`, then ``exp``)
    fused per chunk of ``_POSTERIOR_CHUNK_ROWS`` rows, the chunks of a contiguous row range per thread.

    Each chunk's joint scores are normalised while they are in the cache, by the thread that computed them: no
    second pass over an (n_rows, K) array, and no barrier between the kernel and the normalisation (with
    ``n_jobs=2`` on 1M rows the normalisation threads were the part that did not scale). Every row gets the same
    operations as ``normalize_rows_in_threads(log_joint_columns(...)[0])``, so the same bits for every ``n_jobs``.

    Parameters
    ----------
    plan, columns : as in :func:`log_joint_columns`.
    n_jobs : int, default 1
        Threads over row ranges (:func:`pgmpy_ext.utils.validation.threads_for_rows`: one below 2 x 65,536 rows).
    log : bool, default False
        Return log posteriors (``floor`` applied) instead of posteriors.
    floor : float, optional
        Lowest log posterior (e.g. ``LOG_TINY``), applied before ``exp``.
    fix_marked : callable, optional
        ``fix_marked(start, part)``: called with a chunk's joint scores ``part`` (rows ``start ..``) when the kernel
        marked rows holding a cell to sum out (NaN in ``part[:, 0]``); it must overwrite those rows with their
        exact joint scores. Without it such rows raise ``ValueError``.

    Returns
    -------
    float64 (n_rows, K)
    """
    from pgmpy_ext.utils import log_normalize_rows, parallel_row_ranges

    if len(columns) != plan.n_columns:
        raise ValueError(f"expected {plan.n_columns} code arrays (one per layout column), got {len(columns)}.")
    n = next((len(c) for c in columns if c is not None), 0)
    out = np.empty((n, plan.hidden_card), dtype=np.float64)
    args = plan.kernel_args()
    step = _POSTERIOR_CHUNK_ROWS

    def run(r0: int, r1: int) -> None:
        for c0 in range(r0, r1, step):
            c1 = min(c0 + step, r1)
            part = out[c0:c1]
            cols = columns if (c0 == 0 and c1 == n) else [None if c is None else c[c0:c1] for c in columns]
            try:
                n_marked = _posterior.log_joint_columns(cols, *args, part, 1)
            except _posterior.KernelInputError as err:
                raise ValueError(f"row {err.row + c0}: code {err.code} of code array {err.column} is outside 0.."
                                 f"{int(plan.obs_card[err.node]) - 1}.") from None
            if n_marked:
                if fix_marked is None:
                    raise ValueError(f"{n_marked} rows hold a missing code; give fix_marked to sum them out.")
                fix_marked(c0, part)
            log_normalize_rows(part, floor=floor, out=part)
            if not log:
                np.exp(part, out=part)

    parallel_row_ranges(run, n, threads_for_rows(n_jobs, n), align=step)
    return out


#: Rows per chunk of :func:`posterior_columns` (16,384 rows of K scores and of the codes read stay in the cache).
_POSTERIOR_CHUNK_ROWS = 1 << 14


def log_joint_columns(plan: ColumnPlan, columns: Sequence, *, n_jobs: int = 1) -> tuple[np.ndarray, int]:
    """``log p(H=h, x_r)`` for every row, read straight from one 1-D code array per column.

    Parameters
    ----------
    plan : ColumnPlan
    columns : sequence of 1-D int8 / int16 / int32 arrays (or None for a column no node reads)
        ``columns[k]`` holds the codes of ``layout.columns[k]``; ``-1`` = missing. They may be read-only views
        (pandas category codes) or strided (columns of a C-order matrix): nothing is copied.
    n_jobs : int, default 1
        Threads over row ranges; results are bit-identical for every value.

    Returns
    -------
    out : float64 (n_rows, K)
        Complete rows are bit-identical to :func:`log_joint_batch`. A row with a ``-1`` in a column the network
        reads has NaN in ``out[r, 0]`` (and unspecified entries): sum it out (e.g.
        :func:`pgmpy_ext.models.marginal_log_joint` on those rows) or refuse it.
    n_marked : int
        Number of such rows (0: ``out`` is final).

    Examples
    --------
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"]}, {"C": 2, "A": 2}, ["A"], "C")
    >>> log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[0.9, 0.2], [0.1, 0.8]]}, log=True)
    >>> out, n_marked = log_joint_columns(ColumnPlan.build(lay, log_cpt), [np.array([0, 1, -1], dtype=np.int8)])
    >>> np.exp(out[:2]).round(3).tolist(), n_marked, bool(np.isnan(out[2, 0]))
    ([[0.45, 0.1], [0.05, 0.4]], 1, True)
    """
    if len(columns) != plan.n_columns:
        raise ValueError(f"expected {plan.n_columns} code arrays (one per layout column), got {len(columns)}.")
    n = next((len(c) for c in columns if c is not None), 0)
    out = np.empty((n, plan.hidden_card), dtype=np.float64)
    try:
        n_marked = _posterior.log_joint_columns(columns, *plan.kernel_args(), out, threads_for_rows(n_jobs, n))
    except _posterior.KernelInputError as err:
        raise ValueError(f"row {err.row}: code {err.code} of code array {err.column} is outside 0.."
                         f"{int(plan.obs_card[err.node]) - 1}.") from None
    return out, n_marked
