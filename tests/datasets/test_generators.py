"""Generators: exact size, the class rule re-derived row by row, class counts, determinism under random_state, and
row-level agreement with the shared PMLB copies (skipped when ../shared/datasets is absent)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.datasets import (
    CONTROL_CHART_CLASSES,
    MONK_FEATURES,
    NURSERY_DOMAINS,
    TIC_TAC_TOE_SQUARES,
    make_control_charts,
    make_m_of_n,
    make_monks,
    make_nursery_grid,
    make_tic_tac_toe,
)


# ------------------------------------------------------------------------------------------------ MONK
def _monk_rule(problem: int, a: dict) -> int:
    """The three concepts of Thrun et al. (1991), written per row."""
    if problem == 1:
        return int(a["a1"] == a["a2"] or a["a5"] == 1)
    if problem == 2:
        return int(sum(a[f] == 1 for f in MONK_FEATURES) == 2)
    return int((a["a5"] == 3 and a["a4"] == 1) or (a["a5"] != 4 and a["a2"] != 3))


@pytest.mark.parametrize(("problem", "n_pos"), [(1, 216), (2, 142), (3, 228)], ids=["monk1", "monk2", "monk3"])
def test_monks_full_space_and_rule(problem, n_pos):
    X, y = make_monks(problem)
    assert X.shape == (432, 6)
    assert list(X.columns) == list(MONK_FEATURES)
    assert y.name == "class"
    # every combination exactly once, values 1..card
    expected = set(itertools.product(range(1, 4), range(1, 4), range(1, 3), range(1, 4), range(1, 5), range(1, 3)))
    assert set(map(tuple, X.to_numpy().tolist())) == expected
    assert all(_monk_rule(problem, row) == label for row, label in zip(X.to_dict("records"), y.tolist()))
    assert int(y.sum()) == n_pos
    frame = make_monks(problem, return_X_y=False)
    assert list(frame.columns) == [*MONK_FEATURES, "class"]
    assert frame["class"].tolist() == y.tolist()


def test_monks_noise_is_exact_and_seeded():
    _, clean = make_monks(3)
    _, noisy = make_monks(3, noise=0.05, random_state=7)
    assert int((noisy != clean).sum()) == round(0.05 * 432)
    _, again = make_monks(3, noise=0.05, random_state=7)
    assert noisy.equals(again)
    _, other = make_monks(3, noise=0.05, random_state=8)
    assert not noisy.equals(other)


def test_monks_shuffle_is_a_seeded_permutation():
    X, y = make_monks(2)
    Xs, ys = make_monks(2, shuffle=True, random_state=3)
    Xs2, ys2 = make_monks(2, shuffle=True, random_state=3)
    pd.testing.assert_frame_equal(Xs, Xs2)
    assert not Xs.equals(X)
    key = lambda F, t: Counter((*r, c) for r, c in zip(map(tuple, F.to_numpy().tolist()), t.tolist()))  # noqa: E731
    assert key(Xs, ys) == key(X, y)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"problem": 4}, r"problem == 4, must be one of \(1, 2, 3\)"),
    ({"noise": 1.0}, r"noise == 1.0, must be < 1.0"),
], ids=["problem", "noise"])
def test_monks_bad_args(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_monks(**kwargs)


# Alphabetical rank of the value names (PMLB monk1/monk3) -> original value (see make_monks Notes).
_PMLB_MONK_ALPHA = [(3, 1, 2), (3, 1, 2), (2, 1), (2, 3, 1), (4, 3, 1, 2), (2, 1)]


@pytest.mark.parametrize(("problem", "n_train", "n_noisy"), [(1, 124, 0), (2, 169, 0), (3, 122, 6)],
                         ids=["monk1", "monk2", "monk3"])
def test_monks_against_shared_files(shared_datasets, problem, n_train, n_noisy):
    df = pd.read_csv(shared_datasets / "uci" / f"monk{problem}.tsv.gz", sep="\t")
    labels = df.pop("target").to_numpy()
    F = df.to_numpy()
    if problem != 2:
        F = np.column_stack([np.asarray(_PMLB_MONK_ALPHA[j])[F[:, j]] for j in range(6)])
    X, y = make_monks(problem)
    file_rows = Counter((*r, c) for r, c in zip(map(tuple, F.tolist()), labels.tolist()))
    grid_rows = Counter((*r, c) for r, c in zip(map(tuple, X.to_numpy().tolist()), y.tolist()))
    assert not grid_rows - file_rows                                   # the labelled 432 rows are all in the file
    assert sum((file_rows - grid_rows).values()) == n_train            # the rest is the training set
    rule = np.array([_monk_rule(problem, dict(zip(MONK_FEATURES, r))) for r in F.tolist()])
    assert int((rule != labels).sum()) == n_noisy                      # MONK-3's training set has 5% noise


# ------------------------------------------------------------------------------------------------ m-of-n
def test_m_of_n_3_7_10_cube():
    X, y = make_m_of_n()
    assert X.shape == (1024, 10)
    assert list(X.columns) == [f"Bit-{i}" for i in range(10)]
    assert len(set(map(tuple, X.to_numpy().tolist()))) == 1024
    for row, label in zip(X.to_numpy().tolist(), y.tolist()):
        assert label == int(sum(row[2:9]) >= 3)
    assert int(y.sum()) == 8 * sum(math.comb(7, j) for j in range(3, 8)) == 792


def test_m_of_n_sampling_and_options():
    X, y = make_m_of_n(n_samples=300, random_state=0)
    X2, y2 = make_m_of_n(n_samples=300, random_state=0)
    assert X.shape == (300, 10)
    pd.testing.assert_frame_equal(X, X2)
    assert y.equals(y2)
    assert y.tolist() == (X.iloc[:, 2:9].sum(axis=1) >= 3).astype(int).tolist()
    X3, y3 = make_m_of_n(m=2, n_features=4, relevant=(0, 3))
    assert X3.shape == (16, 4)
    assert y3.tolist() == ((X3["Bit-0"] + X3["Bit-3"]) >= 2).astype(int).tolist()
    with pytest.raises(ValueError, match=r"relevant == \[0, 10\], must be distinct positions in 0 .. 9"):
        make_m_of_n(relevant=(0, 10))
    with pytest.raises(ValueError, match=r"m == 8, must be <= 7"):
        make_m_of_n(m=8)


def test_m_of_n_against_shared_file(shared_datasets):
    df = pd.read_csv(shared_datasets / "uci" / "mofn_3_7_10.tsv.gz", sep="\t")
    labels = df.pop("target")
    X, _ = make_m_of_n()
    assert list(df.columns) == list(X.columns)
    # the rule reproduces every label of the file (1324 rows)
    assert ((df.iloc[:, 2:9].sum(axis=1) >= 3).astype(int) == labels).all()
    # and no other 7 bits with any threshold do
    bits = df.to_numpy()
    matches = [(S, m) for S in itertools.combinations(range(10), 7) for m in range(1, 8)
               if np.array_equal((bits[:, list(S)].sum(axis=1) >= m).astype(int), labels.to_numpy())]
    assert matches == [((2, 3, 4, 5, 6, 7, 8), 3)]
    # its distinct rows are the whole cube (1024 test rows + 300 training rows)
    file_rows = Counter(map(tuple, bits.tolist()))
    assert set(file_rows) == set(map(tuple, X.to_numpy().tolist()))
    assert sum(file_rows.values()) == 1324


# ------------------------------------------------------------------------------------------------ control charts
def test_control_charts_shape_classes_and_patterns():
    X, y = make_control_charts(random_state=0)
    assert X.shape == (1500, 60)
    assert list(X.columns) == [f"t{i}" for i in range(60)]
    assert (X.dtypes == np.float64).all()
    assert y.value_counts().sort_index().tolist() == [250] * 6
    assert y.tolist() == np.repeat(np.arange(6), 250).tolist()
    assert len(CONTROL_CHART_CLASSES) == 6
    v = X.to_numpy()
    t = np.arange(60)
    normal, cyclic, up, down, shift_up, shift_down = (v[k * 250:(k + 1) * 250] for k in range(6))
    assert np.all(np.abs(normal - 30) <= 6)                            # m + r s, |r s| <= 6
    assert np.all(np.abs(cyclic - 30) <= 6 + 15)                       # + a sin(.), a <= 15
    # trends: y - g t stays within the noise band for the series' own slope; slopes lie in [0.2, 0.5]
    slope_up = np.polyfit(t, up.T, 1)[0]
    slope_down = np.polyfit(t, down.T, 1)[0]
    assert slope_up.min() > 0.1
    assert slope_up.max() < 0.6
    assert slope_down.max() < -0.1
    assert slope_down.min() > -0.6
    # shifts: the first 20 samples (t < n/3 <= t3) are plain noise; the last 20 (t >= 40 >= t3) are shifted
    assert np.all(np.abs(shift_up[:, :20] - 30) <= 6)
    assert np.all(np.abs(shift_down[:, :20] - 30) <= 6)
    assert np.all(shift_up[:, 40:] >= 30 - 6 + 7.5)
    assert np.all(shift_down[:, 40:] <= 30 + 6 - 7.5)


def test_control_charts_determinism():
    X1, y1 = make_control_charts(20, 10, random_state=5)
    X2, y2 = make_control_charts(20, 10, random_state=np.random.default_rng(5))
    pd.testing.assert_frame_equal(X1, X2)
    assert y1.equals(y2)
    X3, _ = make_control_charts(20, 10, random_state=6)
    assert not X1.equals(X3)
    frame = make_control_charts(20, 10, return_X_y=False, shuffle=True, random_state=5)
    assert frame.shape == (120, 11)
    assert frame["class"].value_counts().tolist() == [20] * 6


# ------------------------------------------------------------------------------------------------ tic-tac-toe
def _x_wins(board) -> bool:
    lines = [board[0:3], board[3:6], board[6:9], board[0::3], board[1::3], board[2::3], board[0::4],
             board[2:7:2]]
    return any(list(line) == ["x"] * 3 for line in lines)


def test_tic_tac_toe_enumeration():
    X, y = make_tic_tac_toe()
    assert X.shape == (958, 9)
    assert list(X.columns) == list(TIC_TAC_TOE_SQUARES)
    assert int(y.sum()) == 626
    boards = X.astype(str).to_numpy().tolist()
    assert len(set(map(tuple, boards))) == 958
    for board, label in zip(boards, y.tolist()):
        assert label == int(_x_wins(board))
        n_x, n_o = board.count("x"), board.count("o")
        assert n_x - n_o in (0, 1)                                     # x moves first, players alternate
    for c in X.columns:
        assert X[c].cat.categories.tolist() == ["x", "o", "b"]


def test_tic_tac_toe_against_shared_file(shared_datasets):
    df = pd.read_csv(shared_datasets / "uci" / "tic_tac_toe.tsv.gz", sep="\t")
    labels = df.pop("target")
    X, y = make_tic_tac_toe()
    code = {"b": 0, "o": 1, "x": 2}                                    # PMLB: alphabetical codes
    ours = Counter((*(code[v] for v in r), c) for r, c in zip(X.astype(str).to_numpy().tolist(), y.tolist()))
    theirs = Counter((*r, c) for r, c in zip(map(tuple, df.to_numpy().tolist()), labels.tolist()))
    assert ours == theirs


# ------------------------------------------------------------------------------------------------ nursery
def test_nursery_grid():
    X = make_nursery_grid()
    assert X.shape == (12960, 8)
    assert list(X.columns) == list(NURSERY_DOMAINS)
    assert (X.value_counts() == 1).all()
    for c, dom in NURSERY_DOMAINS.items():
        assert X[c].cat.categories.tolist() == list(dom)
        assert X[c].value_counts().tolist() == [12960 // len(dom)] * len(dom)
    assert X.iloc[-1].tolist() == [d[-1] for d in NURSERY_DOMAINS.values()]
    shuffled = make_nursery_grid(shuffle=True, random_state=0)
    assert not shuffled.equals(X)
    assert set(map(tuple, shuffled.astype(str).to_numpy().tolist())) == set(map(tuple, X.astype(str).to_numpy()
                                                                                .tolist()))


def test_nursery_grid_against_shared_file(shared_datasets):
    df = pd.read_csv(shared_datasets / "uci" / "nursery.tsv.gz", sep="\t").drop(columns="target")
    X = make_nursery_grid()
    assert list(df.columns) == list(X.columns)
    codes = np.column_stack([X[c].astype(str).map({v: i for i, v in enumerate(sorted(NURSERY_DOMAINS[c]))})
                             for c in X.columns])
    grid, file_rows = Counter(map(tuple, codes.tolist())), Counter(map(tuple, df.to_numpy().tolist()))
    assert not file_rows - grid                                        # every file row is a grid row, once
    missing = grid - file_rows
    # PMLB dropped the two rows of the UCI class "recommend" (2 of 12960)
    decoded = sorted(tuple(sorted(NURSERY_DOMAINS[c])[k] for c, k in zip(X.columns, r)) for r in missing)
    assert decoded == [
        ("usual", "proper", "complete", "1", "convenient", "convenient", "nonprob", "recommended"),
        ("usual", "proper", "complete", "1", "convenient", "convenient", "slightly_prob", "recommended"),
    ]


def test_control_charts_follow_the_documented_formulas_exactly():
    # Re-derive every value from the Notes of make_control_charts, series by series and t by t, drawing from one
    # Generator in the documented order: noise r (all rows), then cyclic a and T, trend g (up, then down),
    # shift x and t3 (up, then down).
    k, n, seed = 5, 12, 11
    X, y = make_control_charts(k, n, random_state=seed)
    rng = np.random.default_rng(seed)
    r = rng.uniform(-3.0, 3.0, size=(6 * k, n))
    a, period = rng.uniform(10.0, 15.0, size=k), rng.uniform(10.0, 15.0, size=k)
    g_up, g_down = rng.uniform(0.2, 0.5, size=k), rng.uniform(0.2, 0.5, size=k)
    x_up, t3_up = rng.uniform(7.5, 20.0, size=k), rng.uniform(n / 3, 2 * n / 3, size=k)
    x_down, t3_down = rng.uniform(7.5, 20.0, size=k), rng.uniform(n / 3, 2 * n / 3, size=k)
    expected = np.empty((6 * k, n))
    for row in range(6 * k):
        cls, i = divmod(row, k)
        for t in range(n):
            v = 30.0 + r[row, t] * 2.0
            if cls == 1:
                v += a[i] * math.sin(2 * math.pi * t / period[i])
            elif cls in (2, 3):
                v += (1 if cls == 2 else -1) * (g_up if cls == 2 else g_down)[i] * t
            elif cls in (4, 5):
                x, t3 = (x_up[i], t3_up[i]) if cls == 4 else (x_down[i], t3_down[i])
                v += (1 if cls == 4 else -1) * (t >= round(t3)) * x
            expected[row, t] = v
        assert y.iloc[row] == cls
    np.testing.assert_allclose(X.to_numpy(), expected, rtol=1e-12, atol=1e-12)
