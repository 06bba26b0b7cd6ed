"""Issue 11 data rules of the pgmpy scores: missing="available_case"|"error", parent sets as any sequence,
pickling (and joblib with processes), empty data, mixed-type object columns, the numeric-column rule."""

from __future__ import annotations

import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from pgmpy.structure_score import AIC, BIC, K2, BDeu, LogLikelihood

from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext.data import encode
from pgmpy_ext.scores import AICScore, BDeuScore, BICScore, K2Score, LogLikelihoodScore, MDLScore

TOL = {"rtol": 1e-9, "atol": 1e-10}
PAIRS = [(LogLikelihood, LogLikelihoodScore), (BIC, BICScore), (AIC, AICScore), (K2, K2Score), (BDeu, BDeuScore)]
OURS = [LogLikelihoodScore, BICScore, AICScore, K2Score, BDeuScore, MDLScore]
IDS = ["ll", "bic", "aic", "k2", "bdeu"]


def _data(n=300, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 3
    c = np.where(rng.random(n) < 0.7, b % 2, rng.integers(0, 2, n))
    return pd.DataFrame({"A": a, "B": b, "C": c})


def _with_nan(df, frac=0.1, seed=0):
    return df.mask(np.random.default_rng(seed).random(df.shape) < frac)


FAMILIES = [("A", ()), ("B", ("A",)), ("C", ("A", "B")), ("A", ("C",)), ("C", ("B",))]


# ---------------------------------------------------------------- missing values
@pytest.mark.parametrize(("theirs", "ours"), PAIRS, ids=IDS)
def test_available_case_equals_pgmpy_with_nan(theirs, ours):
    df = _with_nan(_data())
    assert df.isna().any().all()
    p, o = theirs(df), ours(df, missing="available_case")
    assert o.missing == "available_case"
    assert_allclose([o.local_score(v, ps) for v, ps in FAMILIES], [p.local_score(v, ps) for v, ps in FAMILIES], **TOL)
    model = DiscreteBayesianNetwork([("A", "B"), ("B", "C")])
    assert_allclose(o.score(model), p.score(model), **TOL)
    assert ours(df).local_score("C", ("A", "B")) == o.local_score("C", ("A", "B"))  # the default


def test_available_case_counts_only_rows_where_the_family_is_observed():
    df = pd.DataFrame({"A": [0, 1, None, 1, 0], "B": [0, 1, 1, None, 0]}, dtype=object)
    ll = LogLikelihoodScore(df).local_score("A", ("B",))
    assert ll == pytest.approx(0.0)  # rows 0, 1, 4: A is a function of B
    assert LogLikelihoodScore(df).local_score("A", ()) == pytest.approx(2 * np.log(2 / 4) + 2 * np.log(2 / 4))


@pytest.mark.parametrize("cls", OURS, ids=[*IDS, "mdl"])
def test_missing_error_names_column_and_index_label(cls):
    df = _data(20).astype(object)
    df.index = [f"r{i}" for i in range(20)]
    df.loc["r7", "B"] = None
    with pytest.raises(ValueError, match=r"Column 'B' has a missing value \(NaN/None\) at row 'r7'; "
                                         rf"{cls.__name__} was given missing='error'\. Pass missing='available_case'"):
        cls(df, missing="error")
    assert np.isfinite(cls(df.dropna(), missing="error").local_score("B", ("A",)))


def test_bad_missing_option():
    with pytest.raises(ValueError, match=r"missing == 'skip', must be one of \('available_case', 'error'\)"):
        BICScore(_data(), missing="skip")


# ---------------------------------------------------------------- parent sets
@pytest.mark.parametrize("cls", OURS, ids=[*IDS, "mdl"])
def test_parents_as_any_sequence(cls):
    score = cls(_data())
    want = score.local_score("C", ("A", "B"))
    assert score.local_score("C", ["A", "B"]) == want
    assert score.local_score("C", ["B", "A"]) == want
    assert score.local_score("C", pd.Index(["A", "B"])) == want
    assert score.local_score("C", np.array(["A", "B"], dtype=object)) == want
    assert score.local_score("C", []) == score.local_score("C", ())
    assert score.local_score("C") == score.local_score("C", ())
    with pytest.raises(TypeError, match=r"parents must be a sequence of column labels .* got str 'A'; write "
                                        r"\('A',\) for a single parent"):
        score.local_score("C", "A")


# ---------------------------------------------------------------- pickling
@pytest.mark.parametrize("cls", OURS, ids=[*IDS, "mdl"])
def test_scores_pickle_round_trip(cls):
    df = _with_nan(_data(), 0.05)
    score = cls(df)
    before = [score.local_score(v, ps) for v, ps in FAMILIES]
    back = pickle.loads(pickle.dumps(score))
    assert type(back) is cls
    assert [back.local_score(v, ps) for v, ps in FAMILIES] == before
    assert back.state_names == score.state_names
    assert back.missing == score.missing


def test_scores_with_joblib_processes():
    score = BDeuScore(_data(), equivalent_sample_size=5)
    want = [score.local_score(v, ps) for v, ps in FAMILIES]
    # the task is a library function, importable in any worker (a reused loky worker may run in another cwd)
    got = joblib.Parallel(n_jobs=2, backend="loky")(joblib.delayed(BDeuScore.local_score)(score, v, ps)
                                                   for v, ps in FAMILIES)
    assert got == want


# ---------------------------------------------------------------- empty data
@pytest.mark.parametrize("cls", OURS, ids=[*IDS, "mdl"])
def test_empty_data_is_a_clear_error(cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__}: the data has no rows \(0 samples\)"):
        cls(pd.DataFrame({"A": pd.Series([], dtype=int), "B": pd.Series([], dtype=int)}))
    with pytest.raises(ValueError, match=rf"{cls.__name__}: the data has no columns"):
        cls(pd.DataFrame(index=[0, 1]))
    with pytest.raises(TypeError, match=rf"{cls.__name__} expects a pandas DataFrame, got ndarray"):
        cls(np.zeros((3, 2)))


# ---------------------------------------------------------------- mixed-type object columns
@pytest.mark.parametrize(("theirs", "ours"), PAIRS, ids=IDS)
def test_mixed_type_object_column_scores_like_its_recoding(theirs, ours):
    rng = np.random.default_rng(1)
    n = 200
    m_codes = rng.integers(0, 3, n)
    b = (m_codes + rng.integers(0, 2, n)) % 2
    values = np.array([1, "1", "two"], dtype=object)
    df = pd.DataFrame({"M": pd.Series(values[m_codes], dtype=object), "B": b})
    score = ours(df)
    # the classifiers' states: distinct by type, (type name, repr) order
    assert score.state_names["M"] == [1, "1", "two"] == encode(df).states[0]
    recoded = pd.DataFrame({"M": m_codes, "B": b})   # the same data with the states renamed 0, 1, 2
    p = theirs(recoded)
    fams = [("M", ()), ("M", ("B",)), ("B", ("M",))]
    assert_allclose([score.local_score(v, ps) for v, ps in fams], [p.local_score(v, ps) for v, ps in fams], **TOL)


# ---------------------------------------------------------------- numeric-column rule
def test_numeric_rule_in_scores():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"amount": rng.integers(0, 1000, 400), "B": rng.integers(0, 2, 400)})
    with pytest.raises(ValueError, match=r"Column 'amount' is numeric with \d+ distinct values, more than "
                                         r"max_numeric_states=50"):
        BICScore(df)
    ok = BICScore(df, max_numeric_states=None)
    assert ok.local_score("B", ("amount",)) == pytest.approx(BIC(df).local_score("B", ("amount",)), rel=1e-9)
    declared = {"amount": sorted(df["amount"].unique().tolist())}
    assert BICScore(df, state_names=declared).local_score("B", ("amount",)) == pytest.approx(
        BIC(df, state_names=declared).local_score("B", ("amount",)), rel=1e-9)
    cat = df.astype({"amount": "category"})
    assert np.isfinite(K2Score(cat).local_score("B", ("amount",)))


@pytest.mark.parametrize("masked", [list(range(7)), [0, 3], []], ids=["all-missing", "some-missing", "complete"])
def test_bulk_pair_tables_give_the_per_family_scores(masked):
    """Issue 25: after a few one-parent families, FamilyCounter counts every pair table and every one-column table
    in two passes and serves the rest from them; the scores are those of one counting pass per family (integer
    counts; weighted counts summed in the same row order), with missing cells skipped per family. Unweighted, the
    one-column table of a column in a pair table that holds every row is that table's margin."""
    from pgmpy_ext.data import encode
    from pgmpy_ext.stats import FamilyCounter

    rng = np.random.default_rng(5)
    df = pd.DataFrame({f"c{k}": rng.integers(0, 2 + k % 3, 400).astype(float) for k in range(7)})
    mask = rng.random(df.shape) < 0.05
    mask[:, [k for k in range(7) if k not in masked]] = False
    df = df.mask(mask)
    data = encode(df, missing="skip")
    for weights in (None, rng.random(400) * 3):
        bulk = FamilyCounter(data, weights)
        fams = [(i, ()) for i in range(7)] + [(i, (j,)) for i in range(7) for j in range(7) if i != j]
        got = [bulk.table(i, list(ps)) for i, ps in fams * 2]  # the second round comes from the bulk tables
        assert bulk._pairs not in (None, False)
        for (i, ps), (table, q) in zip(fams * 2, got):
            ref, q_ref = FamilyCounter(data, weights).table(i, list(ps))
            assert q == q_ref
            np.testing.assert_array_equal(table, ref)
