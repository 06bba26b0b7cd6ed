"""Issue 11 data rules of the classifier structure searches (ClassifierSearchBase): missing values, empty data,
mixed-type object columns, the numeric-column rule."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.data import encode
from pgmpy_ext.structure import (
    ABNSearch,
    BANSearch,
    CLMultinetSearch,
    CTANSearch,
    KDBSearch,
    NBSearch,
    SBNSearch,
    SelectiveNBSearch,
    StructuralTMSearch,
    TANSearch,
)

AVAILABLE_CASE = [NBSearch, TANSearch, CTANSearch, KDBSearch, BANSearch, SBNSearch, CLMultinetSearch]
COMPLETE_ONLY = [ABNSearch, SelectiveNBSearch, StructuralTMSearch]


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 2, n)
    x0 = (c + (rng.random(n) < 0.2)) % 2
    x1 = np.where(rng.random(n) < 0.8, x0, rng.integers(0, 2, n))
    x2 = np.where(rng.random(n) < 0.7, (x1 + c) % 3, rng.integers(0, 3, n))
    x3 = rng.integers(0, 3, n)
    return pd.DataFrame({"C": c, "X0": x0, "X1": x1, "X2": x2, "X3": x3})


def _with_nan(df, frac=0.1, seed=1):
    mask = np.random.default_rng(seed).random(df.shape) < frac
    mask[:, 0] = False
    return df.mask(mask)


def _cmi_available_case(df, a, b, c):
    """I(a; b | c) in nats over the rows where a, b and c are all observed (pandas, brute force)."""
    sub = df[[a, b, c]].dropna()
    n = len(sub)
    n_abc = sub.value_counts([a, b, c])
    n_ac, n_bc, n_c = sub.value_counts([a, c]), sub.value_counts([b, c]), sub.value_counts([c])
    return sum(v / n * math.log(v * n_c[(kc,)] / (n_ac[(ka, kc)] * n_bc[(kb, kc)]))
               for (ka, kb, kc), v in n_abc.items())


def test_tan_available_case_is_the_tree_of_per_pair_available_case_cmi():
    df = _with_nan(_data())
    assert df.isna().to_numpy().sum() > 100
    dag = TANSearch(df).estimate(class_node="C")                     # default: missing="available_case"
    feats = ["X0", "X1", "X2", "X3"]
    g = nx.Graph()
    g.add_weighted_edges_from((a, b, _cmi_available_case(df, a, b, "C")) for a, b in itertools.combinations(feats, 2))
    want = {frozenset(e) for e in nx.maximum_spanning_tree(g).edges()}
    got = {frozenset(e) for e in dag.edges() if "C" not in e}
    assert got == want
    assert {("C", f) for f in feats} <= set(dag.edges())


@pytest.mark.parametrize("cls", AVAILABLE_CASE, ids=lambda c: c.__name__)
def test_available_case_searches_run_on_data_with_nan(cls):
    df = _with_nan(_data(), 0.05)
    est = cls(df, missing="available_case")
    assert est.encoded_.has_missing
    out = est.estimate(class_node="C")
    dags = out.values() if isinstance(out, dict) else [out]
    assert all(set(d.nodes()) >= {"X0", "X1", "X2", "X3"} for d in dags)


@pytest.mark.parametrize("cls", [*AVAILABLE_CASE, *COMPLETE_ONLY], ids=lambda c: c.__name__)
def test_missing_error_names_column_and_index_label(cls):
    df = _data(50).astype(object)
    df.index = [f"r{i}" for i in range(50)]
    df.loc["r9", "X2"] = None
    with pytest.raises(ValueError, match=rf"Column 'X2' has a missing value \(NaN/None\) at row 'r9'; "
                                         rf"{cls.__name__} was given missing='error'"):
        cls(df, missing="error")


@pytest.mark.parametrize("cls", COMPLETE_ONLY, ids=lambda c: c.__name__)
def test_complete_data_searches_refuse_missing_values(cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__} needs complete data: its engine cannot count available "
                                         r"cases"):
        cls(_with_nan(_data()))
    assert cls(_data()).encoded_.n_rows == 400  # complete data: fine


def test_bad_missing_option():
    with pytest.raises(ValueError, match=r"missing == 'skip', must be one of \('available_case', 'error'\)"):
        TANSearch(_data(), missing="skip")


@pytest.mark.parametrize("cls", [*AVAILABLE_CASE, *COMPLETE_ONLY], ids=lambda c: c.__name__)
def test_empty_data_is_a_clear_error(cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__}: the data has no rows \(0 samples\)"):
        cls(_data().iloc[:0])
    with pytest.raises(ValueError, match=rf"{cls.__name__}: the data has no columns"):
        cls(pd.DataFrame(index=[0, 1]))
    with pytest.raises(TypeError, match=rf"{cls.__name__} expects a pandas DataFrame, got ndarray"):
        cls(np.zeros((3, 2)))


@pytest.mark.parametrize("cls", [NBSearch, TANSearch, KDBSearch, BANSearch], ids=lambda c: c.__name__)
def test_mixed_type_object_column_as_in_the_classifiers(cls):
    df = _data()
    values = np.array([1, "1", "two"], dtype=object)
    mixed = df.assign(X2=pd.Series(values[df["X2"].to_numpy()], dtype=object))
    est = cls(mixed)
    assert est.state_names["X2"] == [1, "1", "two"] == encode(mixed).states[3]
    kw = {"random_state": 0} if cls is BANSearch else {}  # BAN draws its variable order
    assert sorted(est.estimate(class_node="C", **kw).edges()) == sorted(cls(df).estimate(class_node="C", **kw).edges())


def test_numeric_rule_in_searches():
    rng = np.random.default_rng(0)
    df = _data().assign(amount=rng.integers(0, 5000, 400))
    with pytest.raises(ValueError, match=r"Column 'amount' is numeric with \d+ distinct values, more than "
                                         r"max_numeric_states=50.*astype\('category'\)"):
        TANSearch(df)
    assert TANSearch(df, max_numeric_states=None).encoded_.card("amount") == df["amount"].nunique()
    assert NBSearch(df.astype({"amount": "category"})).encoded_.card("amount") == df["amount"].nunique()
