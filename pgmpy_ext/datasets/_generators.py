"""Generators of the classic synthetic and enumerable benchmark data sets (MONK, m-of-n, control charts,
tic-tac-toe end games, the nursery attribute grid).

Convention (the same as :func:`pgmpy_ext.datasets.make_corral`): with ``return_X_y=True`` (the default) a generator
returns ``(X, y)``, a DataFrame of the attributes and a Series named ``"class"``; with ``return_X_y=False`` it
returns one DataFrame with the class as its last column, named ``"class"``. Rows come in a documented canonical
order; ``shuffle=True`` permutes them with ``random_state``. Every generator runs offline and is exact: the
enumerated data sets were checked row by row against the PMLB copies in ``../shared/datasets/uci`` (see each
docstring and ``tests/datasets/test_generators.py``).
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np
import pandas as pd
from sklearn.utils import check_scalar

from pgmpy_ext.utils import check_generator, check_option

__all__ = [
    "CONTROL_CHART_CLASSES",
    "MONK_CARDS",
    "MONK_FEATURES",
    "MOFN_RELEVANT",
    "NURSERY_DOMAINS",
    "TIC_TAC_TOE_SQUARES",
    "make_control_charts",
    "make_m_of_n",
    "make_monks",
    "make_nursery_grid",
    "make_tic_tac_toe",
]

#: Attribute names of :func:`make_monks`, in order (Thrun et al. 1991).
MONK_FEATURES = ("a1", "a2", "a3", "a4", "a5", "a6")
#: Number of values of each MONK attribute; attribute ``a_i`` takes the values ``1 .. MONK_CARDS[i-1]``.
MONK_CARDS = (3, 3, 2, 3, 4, 2)
#: The relevant bits of m-of-n-3-7-10 (0-based positions among ``Bit-0 .. Bit-9``).
MOFN_RELEVANT = (2, 3, 4, 5, 6, 7, 8)
#: Class names of :func:`make_control_charts`; class code ``k`` is ``CONTROL_CHART_CLASSES[k]``.
CONTROL_CHART_CLASSES = ("normal", "cyclic", "increasing_trend", "decreasing_trend", "upward_shift",
                         "downward_shift")
#: Attribute names of :func:`make_tic_tac_toe` (UCI), the board squares in row-major order.
TIC_TAC_TOE_SQUARES = ("top-left-square", "top-middle-square", "top-right-square", "middle-left-square",
                       "middle-middle-square", "middle-right-square", "bottom-left-square", "bottom-middle-square",
                       "bottom-right-square")
#: Attribute domains of the UCI nursery data, in the UCI order (``docs/decisions/seed002-003-abn-pena.md``,
#: "Real databases").
NURSERY_DOMAINS = {
    "parents": ("usual", "pretentious", "great_pret"),
    "has_nurs": ("proper", "less_proper", "improper", "critical", "very_crit"),
    "form": ("complete", "completed", "incomplete", "foster"),
    "children": ("1", "2", "3", "more"),
    "housing": ("convenient", "less_conv", "critical"),
    "finance": ("convenient", "inconv"),
    "social": ("nonprob", "slightly_prob", "problematic"),
    "health": ("recommended", "priority", "not_recom"),
}

_CLASS = "class"
# The eight lines of a tic-tac-toe board (row-major square indices).
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _finish(X: pd.DataFrame, y: np.ndarray | None, *, return_X_y: bool, shuffle: bool, random_state):
    """Shared tail of every generator: optional permutation, then the (X, y) or single-frame convention."""
    if shuffle:
        order = check_generator(random_state).permutation(X.shape[0])
        X = X.iloc[order].reset_index(drop=True)
        y = None if y is None else y[order]
    if y is None:
        return X
    target = pd.Series(y, name=_CLASS)
    if return_X_y:
        return X, target
    return X.assign(**{_CLASS: target.to_numpy()})


# ---------------------------------------------------------------------------------------------------- MONK
def make_monks(problem: int = 1, *, noise: float = 0.0, return_X_y: bool = True, shuffle: bool = False,
               random_state=None):
    r"""The MONK's problems 1-3 (Thrun et al. 1991) over their full attribute space of 432 robots.

    Six attributes ``a1 .. a6`` with 3, 3, 2, 3, 4 and 2 values, coded ``1 .. card`` as in the original files
    (``a1`` head shape, ``a2`` body shape, ``a3`` is smiling, ``a4`` holding, ``a5`` jacket colour, ``a6`` has
    tie). The original test sets are exactly these 432 rows; the training sets (124, 169 and 122 rows) are random
    subsets that cannot be regenerated. Used by Santafé (2007), Tables 5.1-5.2 (Monk1/Monk2), and the shared
    ``monk1/2/3.tsv.gz`` files (training set + test set concatenated).

    Parameters
    ----------
    problem : {1, 2, 3}, default 1
        Which target concept (see Notes).
    noise : float in [0, 1), default 0.0
        Fraction of labels to flip: exactly ``round(noise * 432)`` rows, drawn without replacement with
        ``random_state``, get the other class. The original MONK-3 *training* set has 5% class noise
        (``noise=0.05``); its test set, like the default here, has none.
    return_X_y : bool, default True
        Return ``(X, y)``; False returns one DataFrame with the class as its last column ``"class"``.
    shuffle : bool, default False
        Permute the rows with ``random_state``.
    random_state : None, int or numpy Generator
        Seed of the label noise and of the permutation (one Generator: noise is drawn first).

    Returns
    -------
    (X, y) : (pandas.DataFrame of shape (432, 6), pandas.Series of shape (432,))
        Integer columns ``a1 .. a6``; ``y`` is 1 for the concept, 0 otherwise, named ``"class"``.
    frame : pandas.DataFrame of shape (432, 7)
        When ``return_X_y=False``.

    Notes
    -----
    Rows enumerate the Cartesian product in lexicographic order, ``a1`` most significant (the order of the
    original test files). The concepts are

    * MONK-1: :math:`a_1 = a_2 \lor a_5 = 1` (216 of 432 positive);
    * MONK-2: exactly two of the six attributes take their first value 1 (142 positive);
    * MONK-3: :math:`(a_5 = 3 \land a_4 = 1) \lor (a_5 \ne 4 \land a_2 \ne 3)` (228 positive).

    The shared PMLB copies (training rows + these 432 test rows) code ``monk2`` as ``1 .. card``, but
    ``monk1``/``monk3`` (attribute names "Head shape", ...) by the alphabetical rank of the value *names*: head and
    body shape octagon/round/square = 0/1/2 (original 3/1/2), is smiling and has tie no/yes = 0/1 (2/1), holding
    balloon/flag/sword = 0/1/2 (2/3/1), jacket colour blue/green/red/yellow = 0/1/2/3 (4/3/1/2). After that recoding
    the 432 labelled rows here are a sub-multiset of each file (the rest is the 124-, 169- and 122-row training
    set), and every label in the files agrees with the rule except 6 rows of the MONK-3 training set: its 5%
    noise (checked in ``tests/datasets/test_generators.py``).

    The "binarised" Monk1-bin/Monk2-bin sets of Santafé (2007) are not defined there (``17 binary?`` in
    ``docs/decisions/seed001-tm-classifiers.md``, "Data-set catalogue") and are not generated here; one-hot
    encoding (e.g. ``pandas.get_dummies(X.astype(str))``) gives 17 binary
    columns, but whether that is the MLC++ coding is unverified.

    References
    ----------
    .. [1] S. B. Thrun et al., "The MONK's problems: a performance comparison of different learning algorithms",
       Technical report CMU-CS-91-197, Carnegie Mellon University, 1991.

    Examples
    --------
    >>> X, y = make_monks(1)
    >>> X.shape, int(y.sum())
    ((432, 6), 216)
    >>> X.iloc[0].tolist(), int(y.iloc[0])     # a1 == a2 == 1: positive
    ([1, 1, 1, 1, 1, 1], 1)
    >>> _, y3 = make_monks(3, noise=0.05, random_state=0)
    >>> int((y3 != make_monks(3)[1]).sum())    # round(0.05 * 432) flipped labels
    22
    """
    check_option(problem, "problem", (1, 2, 3))
    check_scalar(noise, "noise", numbers.Real, min_val=0.0, max_val=1.0, include_boundaries="left")
    grid = np.array(list(itertools.product(*(range(1, c + 1) for c in MONK_CARDS))), dtype=np.int64)  # (432, 6)
    a1, a2, a3, a4, a5, a6 = grid.T
    if problem == 1:
        y = (a1 == a2) | (a5 == 1)
    elif problem == 2:
        y = (grid == 1).sum(axis=1) == 2
    else:
        y = ((a5 == 3) & (a4 == 1)) | ((a5 != 4) & (a2 != 3))
    y = y.astype(np.int64)
    rng = check_generator(random_state)
    n_flip = int(round(noise * grid.shape[0]))
    if n_flip:
        flip = rng.choice(grid.shape[0], size=n_flip, replace=False)
        y[flip] = 1 - y[flip]
    X = pd.DataFrame(grid, columns=list(MONK_FEATURES))
    return _finish(X, y, return_X_y=return_X_y, shuffle=shuffle, random_state=rng)


# ---------------------------------------------------------------------------------------------------- m-of-n
def make_m_of_n(*, m: int = 3, n_features: int = 10, relevant=MOFN_RELEVANT, n_samples: int | None = None,
                return_X_y: bool = True, shuffle: bool = False, random_state=None):
    r"""The m-of-n concept over binary attributes; the defaults give m-of-n-3-7-10 (Kohavi & John 1997, MLC++).

    ``n_features`` binary attributes ``Bit-0 .. Bit-{n_features-1}``; the class is 1 when at least ``m`` of the
    ``relevant`` bits are 1. For m-of-n-3-7-10 the seven relevant bits are ``Bit-2 .. Bit-8`` and ``Bit-0``,
    ``Bit-1``, ``Bit-9`` are irrelevant. That choice was inferred from the shared
    ``../shared/datasets/uci/mofn_3_7_10.tsv.gz`` (PMLB): among all 7-subsets of the 10 bits and all thresholds,
    only ``{2, ..., 8}`` with threshold 3 reproduces its labels, and it does so on every one of its 1324 rows.
    Used by Santafé (2007), Tables 5.1-5.4 (N = 1324 = 300 training rows + the 1024-row cube).

    Parameters
    ----------
    m : int, default 3
        Threshold: the class is 1 when at least ``m`` relevant bits are 1.
    n_features : int, default 10
        Number of binary attributes (at most 24 when the whole cube is enumerated).
    relevant : sequence of int, default (2, 3, 4, 5, 6, 7, 8)
        0-based positions of the relevant bits.
    n_samples : int or None, default None
        None enumerates the whole cube (``2 ** n_features`` rows, lexicographic order, ``Bit-0`` most
        significant). An int draws that many rows uniformly at random (every bit i.i.d. Bernoulli(1/2), rows may
        repeat), the way the original 300-row training set was drawn.
    return_X_y, shuffle, random_state
        As in :func:`make_monks`; ``random_state`` seeds the sample and the permutation.

    Returns
    -------
    (X, y) : (pandas.DataFrame of shape (n, n_features), pandas.Series of shape (n,))
        Integer 0/1 columns; ``y`` named ``"class"``. Or one DataFrame when ``return_X_y=False``.

    Notes
    -----
    .. math::

        c = \left[\sum_{i \in R} x_i \ge m\right].

    The full cube of m-of-n-3-7-10 has 1024 rows, 792 of them positive
    (:math:`8 \sum_{j \ge 3} \binom{7}{j} = 8 \cdot 99`, see Examples).

    References
    ----------
    .. [1] R. Kohavi and G. H. John, "Wrappers for feature subset selection", Artificial Intelligence 97, 1997.

    Examples
    --------
    >>> X, y = make_m_of_n()
    >>> X.shape, int(y.sum())
    ((1024, 10), 792)
    >>> X.columns[:3].tolist()
    ['Bit-0', 'Bit-1', 'Bit-2']
    >>> bool(((X.iloc[:, 2:9].sum(axis=1) >= 3).astype(int) == y).all())
    True
    """
    # the whole cube has 2 ** n_features rows: enumeration stops at 24 bits (16.8 million rows)
    check_scalar(n_features, "n_features", numbers.Integral, min_val=1, max_val=24 if n_samples is None else None)
    rel = np.asarray(list(relevant), dtype=np.intp)
    if rel.ndim != 1 or rel.size == 0 or len(set(rel.tolist())) != rel.size or rel.min() < 0 \
            or rel.max() >= n_features:
        raise ValueError(f"relevant == {list(relevant)!r}, must be distinct positions in 0 .. {n_features - 1}.")
    check_scalar(m, "m", numbers.Integral, min_val=0, max_val=int(rel.size))
    rng = check_generator(random_state)
    if n_samples is None:
        X = np.array(list(itertools.product((0, 1), repeat=n_features)), dtype=np.int64)
    else:
        check_scalar(n_samples, "n_samples", numbers.Integral, min_val=1)
        X = rng.integers(0, 2, size=(n_samples, n_features), dtype=np.int64)
    y = (X[:, rel].sum(axis=1) >= m).astype(np.int64)
    frame = pd.DataFrame(X, columns=[f"Bit-{i}" for i in range(n_features)])
    return _finish(frame, y, return_X_y=return_X_y, shuffle=shuffle, random_state=rng)


# ---------------------------------------------------------------------------------------------------- control charts
def make_control_charts(n_per_class: int = 250, n_timepoints: int = 60, *, return_X_y: bool = True,
                        shuffle: bool = False, random_state=None):
    r"""Six-class control-chart patterns (Pham & Oztemel 1992), as reconstructed in
    ``docs/decisions/seed000-sbn-cem-nbm.md`` ("Control-chart generator") for Ruz's thesis.

    ``n_per_class`` series per class and ``n_timepoints`` time samples ``t = 0 .. n-1`` used as continuous
    attributes ``t0 .. t{n-1}``. The defaults give the thesis's 1500 x 60 data set (250 per class), used with
    5-fold CV and Fayyad-Irani discretisation (Ruz's thesis, Table 3.3).

    Parameters
    ----------
    n_per_class : int, default 250
        Series per class.
    n_timepoints : int, default 60
        Length ``n`` of each series.
    return_X_y, shuffle
        As in :func:`make_monks`.
    random_state : None, int or numpy Generator
        Seed of everything random (see Notes for the order of the draws).

    Returns
    -------
    (X, y) : (pandas.DataFrame of shape (6 * n_per_class, n_timepoints), pandas.Series)
        float64 columns; ``y`` holds class codes 0..5 (``CONTROL_CHART_CLASSES[k]`` names code ``k``), named
        ``"class"``. Or one DataFrame when ``return_X_y=False``.

    Notes
    -----
    With :math:`m = 30`, :math:`s = 2` and :math:`r(t) \sim U[-3, 3]` drawn independently for every series and
    every :math:`t`:

    0. normal: :math:`y(t) = m + r(t) s`;
    1. cyclic: :math:`y(t) = m + r(t) s + a \sin(2 \pi t / T)`, :math:`a, T \sim U[10, 15]`;
    2. increasing trend: :math:`y(t) = m + r(t) s + g t`, :math:`g \sim U[0.2, 0.5]`;
    3. decreasing trend: :math:`y(t) = m + r(t) s - g t`;
    4. upward shift: :math:`y(t) = m + r(t) s + k(t) x`, :math:`x \sim U[7.5, 20]`, :math:`k(t) = [t \ge t_3]`,
       :math:`t_3 \sim U[n/3, 2n/3]` rounded to the nearest integer (``numpy.rint``);
    5. downward shift: :math:`y(t) = m + r(t) s - k(t) x`.

    The per-series parameters are drawn once per series. These are the formulas documented with the UCI
    "Synthetic Control Chart Time Series" data (Alcock & Manolopoulos 1999); the 1992 paper is not printed in the
    thesis, so the ranges are the spec's reconstruction. Rows come in class blocks (all class-0 series first).
    Draw order from the one Generator: the noise matrix ``r`` (all rows, row-major), then per class in order its
    parameters (cyclic: ``a`` then ``T``; trends: ``g``; shifts: ``x`` then ``t3``), then the permutation when
    ``shuffle=True``.

    References
    ----------
    .. [1] D. T. Pham and E. Oztemel, "Control chart pattern recognition using neural networks", Journal of
       Systems Engineering 2, 1992, pp. 256-262.
    .. [2] R. J. Alcock and Y. Manolopoulos, "Time-series similarity queries employing a feature-based approach",
       7th Hellenic Conference on Informatics, 1999.

    Examples
    --------
    >>> X, y = make_control_charts(random_state=0)
    >>> X.shape, y.value_counts().sort_index().tolist()
    ((1500, 60), [250, 250, 250, 250, 250, 250])
    >>> CONTROL_CHART_CLASSES[int(y.iloc[300])]
    'cyclic'
    >>> bool(X.iloc[:250].abs().sub(30).abs().max().max() <= 6)   # normal: 30 +- 3 * 2
    True
    """
    check_scalar(n_per_class, "n_per_class", numbers.Integral, min_val=1)
    check_scalar(n_timepoints, "n_timepoints", numbers.Integral, min_val=1)
    rng = check_generator(random_state)
    k, n = int(n_per_class), int(n_timepoints)
    mean, s = 30.0, 2.0
    t = np.arange(n, dtype=np.float64)
    values = mean + s * rng.uniform(-3.0, 3.0, size=(6 * k, n))          # normal pattern for every row
    blocks = [values[c * k:(c + 1) * k] for c in range(6)]                # views: updated in place
    a = rng.uniform(10.0, 15.0, size=k)
    period = rng.uniform(10.0, 15.0, size=k)
    blocks[1] += a[:, None] * np.sin(2.0 * np.pi * t[None, :] / period[:, None])
    for c, sign in ((2, 1.0), (3, -1.0)):
        g = rng.uniform(0.2, 0.5, size=k)
        blocks[c] += sign * g[:, None] * t[None, :]
    for c, sign in ((4, 1.0), (5, -1.0)):
        x = rng.uniform(7.5, 20.0, size=k)
        t3 = np.rint(rng.uniform(n / 3.0, 2.0 * n / 3.0, size=k))
        blocks[c] += sign * x[:, None] * (t[None, :] >= t3[:, None])
    y = np.repeat(np.arange(6, dtype=np.int64), k)
    X = pd.DataFrame(values, columns=[f"t{i}" for i in range(n)])
    return _finish(X, y, return_X_y=return_X_y, shuffle=shuffle, random_state=rng)


# ---------------------------------------------------------------------------------------------------- tic-tac-toe
def _winner(board: tuple) -> str | None:
    for i, j, k in _LINES:
        if board[i] != "b" and board[i] == board[j] == board[k]:
            return board[i]
    return None


def _terminal_boards() -> list[tuple]:
    """Every distinct terminal board of legal play (x first): depth-first over moves, stopping at a win or a full
    board."""
    seen: set[tuple] = set()
    terminal: set[tuple] = set()
    stack = [(("b",) * 9, "x")]
    while stack:
        board, player = stack.pop()
        if board in seen:
            continue
        seen.add(board)
        if _winner(board) is not None or "b" not in board:
            terminal.add(board)
            continue
        nxt = "o" if player == "x" else "x"
        for sq in range(9):
            if board[sq] == "b":
                stack.append((board[:sq] + (player,) + board[sq + 1:], nxt))
    return sorted(terminal, key=lambda b: ["xob".index(v) for v in b])


def make_tic_tac_toe(*, return_X_y: bool = True, shuffle: bool = False, random_state=None):
    """The UCI tic-tac-toe endgame data set (Aha 1991), rebuilt by enumerating every end of a legal game.

    Nine attributes, the squares top-left ... bottom-right (``TIC_TAC_TOE_SQUARES``), each ``"x"``, ``"o"`` or
    ``"b"`` (blank), as a pandas Categorical with categories ``["x", "o", "b"]``. A board is included when it can
    be reached by legal play with x moving first and the game is over there: a player has three in a row or the
    board is full. There are exactly 958 such boards, 626 of which x wins (the UCI "positive" class; Peña et al. 1999,
    section 4).

    Parameters
    ----------
    return_X_y, shuffle, random_state
        As in :func:`make_monks` (the data set itself is deterministic).

    Returns
    -------
    (X, y) : (pandas.DataFrame of shape (958, 9), pandas.Series of shape (958,))
        ``y`` is 1 when x has three in a row (UCI "positive"), else 0, named ``"class"``.
        Or one DataFrame when ``return_X_y=False``.

    Notes
    -----
    Rows are sorted lexicographically over the nine squares with ``x < o < b``. The shared PMLB copy
    ``tic_tac_toe.tsv.gz`` names the squares ``t1 .. t9`` and codes them alphabetically (``b = 0``, ``o = 1``,
    ``x = 2``) with ``target`` 1/0 for positive/negative; after that recoding its 958 rows equal these as a
    multiset (each board once), labels included.

    References
    ----------
    .. [1] D. W. Aha, "Tic-Tac-Toe Endgame" data set, UCI Machine Learning Repository, 1991.

    Examples
    --------
    >>> X, y = make_tic_tac_toe()
    >>> X.shape, int(y.sum())
    ((958, 9), 626)
    >>> X.iloc[0].tolist()[:3], int(y.iloc[0])
    (['x', 'x', 'x'], 1)
    """
    boards = _terminal_boards()
    y = np.array([_winner(b) == "x" for b in boards], dtype=np.int64)
    X = pd.DataFrame({name: pd.Categorical([b[i] for b in boards], categories=["x", "o", "b"])
                      for i, name in enumerate(TIC_TAC_TOE_SQUARES)})
    return _finish(X, y, return_X_y=return_X_y, shuffle=shuffle, random_state=random_state)


# ---------------------------------------------------------------------------------------------------- nursery
def make_nursery_grid(*, shuffle: bool = False, random_state=None) -> pd.DataFrame:
    """The attribute grid of the UCI nursery data set (Olave, Rajkovic & Bohanec 1989): all 12,960 combinations.

    The UCI data holds every combination of the eight attribute values exactly once (Peña et al. 1999, section 4),
    so the attributes are independent and uniform. The class comes from the hierarchical DEX decision model of
    the original paper, whose rule tables are not given in the spec; this function therefore returns **the
    attributes only** (no class column, unlike the other generators). Peña et al. (1999) delete the class anyway.

    Parameters
    ----------
    shuffle : bool, default False
        Permute the rows with ``random_state``.
    random_state : None, int or numpy Generator
        Seed of the permutation (the grid itself is deterministic).

    Returns
    -------
    X : pandas.DataFrame of shape (12960, 8)
        Categorical columns ``parents, has_nurs, form, children, housing, finance, social, health`` with the
        categories of ``NURSERY_DOMAINS`` (string labels, UCI order). Rows in lexicographic order of the
        Cartesian product, ``parents`` most significant (the order of the UCI file).

    Notes
    -----
    The shared PMLB copy ``nursery.tsv.gz`` has 12,958 rows: it dropped the two rows of the class
    "recommend". Its codes are the alphabetical ranks of the labels (e.g. parents ``great_pret = 0``,
    ``pretentious = 1``, ``usual = 2``); after that recoding its rows are a sub-multiset of this grid and the grid
    has exactly two more rows (checked in ``tests/datasets/test_generators.py``).

    References
    ----------
    .. [1] M. Olave, V. Rajkovic and M. Bohanec, "An application for admission in public school systems", in
       Expert Systems in Public Administration, Elsevier, 1989, pp. 145-160.

    Examples
    --------
    >>> X = make_nursery_grid()
    >>> X.shape
    (12960, 8)
    >>> X.iloc[0].tolist()
    ['usual', 'proper', 'complete', '1', 'convenient', 'convenient', 'nonprob', 'recommended']
    >>> bool((X.value_counts() == 1).all())
    True
    """
    codes = np.array(list(itertools.product(*(range(len(d)) for d in NURSERY_DOMAINS.values()))), dtype=np.int64)
    X = pd.DataFrame({name: pd.Categorical.from_codes(codes[:, j], categories=list(dom))
                      for j, (name, dom) in enumerate(NURSERY_DOMAINS.items())})
    return _finish(X, None, return_X_y=True, shuffle=shuffle, random_state=random_state)
