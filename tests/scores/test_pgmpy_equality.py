"""pgmpy_ext.scores against pgmpy 1.1.2's own structure scores: local scores, model scores, hill climbing, MDL."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from pgmpy.causal_discovery import ExpertKnowledge, HillClimbSearch
from pgmpy.structure_score import AIC, BIC, K2, BDeu, LogLikelihood, get_scoring_method

from pgmpy_ext._compat import DAG, BaseStructureScore, DiscreteBayesianNetwork
from pgmpy_ext.scores import AICScore, BDeuScore, BICScore, K2Score, LogLikelihoodScore, MDLScore
from pgmpy_ext.stats import family_counts
from tests.reference_scores import bdeu_ref, k2_ref

# (id, pgmpy factory, pgmpy_ext factory); both called as f(data, state_names)
SCORES = [
    ("ll", lambda d, s: LogLikelihood(d, state_names=s), lambda d, s: LogLikelihoodScore(d, state_names=s)),
    ("bic", lambda d, s: BIC(d, state_names=s), lambda d, s: BICScore(d, state_names=s)),
    ("aic", lambda d, s: AIC(d, state_names=s), lambda d, s: AICScore(d, state_names=s)),
    ("k2", lambda d, s: K2(d, state_names=s), lambda d, s: K2Score(d, state_names=s)),
    ("bdeu", lambda d, s: BDeu(d, state_names=s), lambda d, s: BDeuScore(d, state_names=s)),
    ("bdeu-ess2.5", lambda d, s: BDeu(d, 2.5, state_names=s), lambda d, s: BDeuScore(d, 2.5, state_names=s)),
    ("mdl-vs-bic", lambda d, s: BIC(d, state_names=s), lambda d, s: MDLScore(d, state_names=s)),
]
SCORE_IDS = [s[0] for s in SCORES]

# Values near 0 (e.g. a BDeu family of an empty table) are sums of cancelling terms: pgmpy gives -4e-16 where the
# kernel gives 0, so a tiny absolute tolerance comes with the relative one.
TOL = {"rtol": 1e-9, "atol": 1e-10}


def _int_data(n=400, seed=7):
    """Integer-coded data with cardinalities 2..5 and strong, skewed dependencies: many parent configurations never
    occur, which exercises pgmpy's reindex=False corrections in K2 and BDeu."""
    rng = np.random.default_rng(seed)
    a = rng.choice(3, size=n, p=[0.7, 0.25, 0.05])
    b = (a + rng.choice(2, size=n, p=[0.9, 0.1])) % 4
    c = np.where(rng.random(n) < 0.8, b % 2, rng.integers(0, 2, n))
    d = np.where(rng.random(n) < 0.85, (a * 2 + c) % 5, rng.integers(0, 5, n))
    return pd.DataFrame({"A": a, "B": b, "C": c, "D": d}).astype(np.int64)


def _with_nan(df, frac, seed):
    rng = np.random.default_rng(seed)
    return df.mask(rng.random(df.shape) < frac)


def _dataset(name, asia_df):
    """(data, state_names or None) for each data-set id."""
    if name == "asia":
        return asia_df, None
    if name == "asia-nan":
        return _with_nan(asia_df, 0.05, 0), None
    if name == "asia-strings":
        return asia_df.astype(str), None
    if name == "asia-declared-states":
        return asia_df, {"dysp": ["no", "yes", "unknown"], "smoke": ["sometimes", "no", "yes"],
                         "xray": ["no", "yes", "a", "b"]}
    if name == "asia-unused-categories":
        df = asia_df.copy()
        for col in ("asia", "tub", "lung"):
            df[col] = df[col].cat.add_categories(["maybe"])
        return df, None
    if name == "int-coded":
        return _int_data(), None
    if name == "int-nan-declared":
        return _with_nan(_int_data(), 0.08, 1), {"A": [0, 1, 2, 3], "C": [0, 1, 2], "D": list(range(6))}
    raise ValueError(name)


DATASETS = ["asia", "asia-nan", "asia-strings", "asia-declared-states", "asia-unused-categories", "int-coded",
            "int-nan-declared"]


def _families(columns):
    """Every empty and single-parent family, and a fixed selection of two- and three-parent families."""
    fams = [(v, ()) for v in columns]
    fams += [(v, (p,)) for v in columns for p in columns if p != v]
    for v in columns:
        others = [c for c in columns if c != v]
        fams += [(v, ps) for ps in list(combinations(others, 2))[:3]]
        fams += [(v, ps) for ps in list(combinations(others, 3))[:1]]
    return fams


def _model_for(columns):
    if set(columns) == {"asia", "bronc", "dysp", "either", "lung", "smoke", "tub", "xray"}:
        edges = [("asia", "tub"), ("tub", "either"), ("smoke", "lung"), ("lung", "either"), ("smoke", "bronc"),
                 ("either", "xray"), ("either", "dysp"), ("bronc", "dysp")]
    else:
        edges = [("A", "B"), ("B", "C"), ("A", "D"), ("C", "D")]
    return DiscreteBayesianNetwork(edges)


# ------------------------------------------------------------------------------------------- local and model scores
@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize(("kind", "theirs", "ours"), SCORES, ids=SCORE_IDS)
def test_local_and_model_scores_equal_pgmpy(asia_df, dataset, kind, theirs, ours):
    data, state_names = _dataset(dataset, asia_df)
    p, o = theirs(data, state_names), ours(data, state_names)
    fams = _families(list(data.columns))
    want = np.array([p.local_score(v, ps) for v, ps in fams])
    got = np.array([o.local_score(v, ps) for v, ps in fams])
    assert_allclose(got, want, **TOL)
    model = _model_for(list(data.columns))
    assert_allclose(o.score(model), p.score(model), **TOL)


@pytest.mark.parametrize(("kind", "theirs", "ours"), SCORES, ids=SCORE_IDS)
def test_sparse_counting_path_equals_pgmpy(asia_df, kind, theirs, ours):
    """Families too large for a dense table are counted over their observed configurations only."""
    data, state_names = _dataset("int-nan-declared", asia_df)
    p, o = theirs(data, state_names), ours(data, state_names)
    o._counter.dense_max_cells = 1  # force the sparse path for every family
    fams = _families(list(data.columns))
    assert_allclose([o.local_score(v, ps) for v, ps in fams], [p.local_score(v, ps) for v, ps in fams], **TOL)


def test_pgmpy_k2_and_bdeu_quirks_are_reproduced():
    """The int data trigger pgmpy's reindex=False departures from the textbook K2/BDeu; we follow pgmpy."""
    data = _int_data()
    # D (5 states) given A, B: some of the 12 configurations never occur
    counts = family_counts(K2Score(data).encoded_, "D", ["A", "B"]).reshape(5, -1)
    assert (counts.sum(axis=0) == 0).any()
    pgmpy_k2 = K2(data).local_score("D", ("A", "B"))
    assert pgmpy_k2 != pytest.approx(k2_ref(counts), rel=1e-6)  # pgmpy adds lgamma(5) per unseen configuration
    assert K2Score(data).local_score("D", ("A", "B")) == pytest.approx(pgmpy_k2, rel=1e-12)
    n_unseen = int((counts.sum(axis=0) == 0).sum())
    assert pgmpy_k2 == pytest.approx(k2_ref(counts) + n_unseen * math.lgamma(5), rel=1e-12)
    # BDeu: a declared child state that never occurs (D = 5) is missing from pgmpy's table
    declared = {"D": list(range(6))}
    counts6 = family_counts(BDeuScore(data, state_names=declared).encoded_, "D", ["A"]).reshape(6, -1)
    pgmpy_bdeu = BDeu(data, state_names=declared).local_score("D", ("A",))
    assert pgmpy_bdeu != pytest.approx(bdeu_ref(counts6, 10.0), rel=1e-6)
    assert BDeuScore(data, state_names=declared).local_score("D", ("A",)) == pytest.approx(pgmpy_bdeu, rel=1e-12)


def test_unordered_parents_give_the_same_score(asia_df):
    score = BICScore(asia_df)
    assert score.local_score("dysp", ("either", "bronc")) == score.local_score("dysp", ("bronc", "either"))


def test_input_dataframe_is_not_modified(asia_df):
    df = _with_nan(asia_df, 0.05, 3)
    before = df.copy()
    BDeuScore(df, equivalent_sample_size=5).local_score("dysp", ("bronc",))
    pd.testing.assert_frame_equal(df, before)


def test_scores_are_pgmpy_score_objects_with_unique_names(asia_df):
    classes = [LogLikelihoodScore, BICScore, AICScore, K2Score, BDeuScore, MDLScore]
    names = [cls.get_class_tag("name") for cls in classes]
    assert names == ["ll-ext", "bic-ext", "aic-ext", "k2-ext", "bdeu-ext", "mdl-ext"]
    pgmpy_names = {cls.get_class_tag("name") for cls in (LogLikelihood, BIC, AIC, K2, BDeu)}
    assert not pgmpy_names & set(names)
    score = BICScore(asia_df)
    assert isinstance(score, BaseStructureScore)
    assert get_scoring_method(score, asia_df) is score
    assert all(cls.get_class_tag("default_for") is None for cls in classes)  # never auto-selected by pgmpy


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda df: BICScore(df).local_score("nope", ()), KeyError, r"Column 'nope' is not in the data"),
        (lambda df: BICScore(df).local_score("dysp", ("dysp",)), ValueError, r"'dysp' cannot be its own parent"),
        (lambda df: K2Score(df).local_score("dysp", ("bronc", "bronc")), ValueError, r"contain duplicates"),
        (lambda df: BDeuScore(df, equivalent_sample_size=0), ValueError, r"equivalent_sample_size == 0, must be > 0"),
        (lambda df: BDeuScore(df, equivalent_sample_size="10"), TypeError, r"equivalent_sample_size must be a num"),
        (lambda df: MDLScore(df, log_base=10), ValueError, r"log_base == 10, must be one of \('e', 2\)"),
        (lambda df: BICScore(df, state_names={"dysp": ["no"]}), ValueError, r"unexpected states for variable: dysp"),
    ],
    ids=["unknown-variable", "own-parent", "duplicate-parents", "ess-zero", "ess-type", "log-base", "bad-states"],
)
def test_errors(asia_df, call, exc, match):
    with pytest.raises(exc, match=match):
        call(asia_df)


# ------------------------------------------------------------------------------------------------- hill climbing
def _hill_climb(score, df, expert_knowledge=None):
    est = HillClimbSearch(scoring_method=score, expert_knowledge=expert_knowledge, return_type="dag",
                          show_progress=False)
    return sorted(est.fit(df).causal_graph_.edges())


def test_hill_climb_k2_same_dag_as_pgmpy(asia_df):
    edges = _hill_climb(K2Score(asia_df), asia_df)
    assert edges == _hill_climb(K2(asia_df), asia_df)
    assert len(edges) >= 5


# BIC, AIC and BDeu are score-equivalent: adding X -> Y and Y -> X to two parentless nodes changes the score by
# exactly the same amount, so HillClimbSearch's choice between them is decided by last-bit rounding and by set
# iteration order (PYTHONHASHSEED); pgmpy's own BIC learns different DAGs in different processes. A total temporal
# order removes those twins, and then the learned DAG must be the same edge for edge.
@pytest.mark.parametrize(
    ("theirs", "ours"),
    [(BIC, BICScore), (AIC, AICScore), (BDeu, BDeuScore), (K2, K2Score), (BIC, MDLScore)],
    ids=["bic", "aic", "bdeu", "k2", "mdl"],
)
def test_hill_climb_same_dag_as_pgmpy_with_variable_order(asia_df, theirs, ours):
    order = [[v] for v in asia_df.columns]
    edges = _hill_climb(ours(asia_df), asia_df, ExpertKnowledge(temporal_order=order))
    assert edges == _hill_climb(theirs(asia_df), asia_df, ExpertKnowledge(temporal_order=order))
    assert len(edges) >= 5


def test_hill_climb_bic_unconstrained_runs_and_beats_empty_graph(asia_df):
    """The brief's exact call; the DAG itself is compared under a variable order above (ties, see there)."""
    edges = HillClimbSearch(scoring_method=BICScore(asia_df), return_type="dag", show_progress=False).fit(
        asia_df).causal_graph_.edges()
    dag, empty = DAG(list(edges)), DAG()
    dag.add_nodes_from(asia_df.columns)
    empty.add_nodes_from(asia_df.columns)
    assert BIC(asia_df).score(dag) > BIC(asia_df).score(empty) + 100.0


# ---------------------------------------------------------------------------------------------------------- MDL
def test_mdl_nats_is_bic_and_bits_is_bic_over_ln2(asia_df):
    bic, nats, bits = BICScore(asia_df), MDLScore(asia_df), MDLScore(asia_df, log_base=2)
    for v, ps in _families(list(asia_df.columns)):
        assert nats.local_score(v, ps) == bic.local_score(v, ps)
        assert bits.local_score(v, ps) == pytest.approx(bic.local_score(v, ps) / math.log(2), rel=1e-14)


@pytest.mark.parametrize(("log_base", "log"), [("e", math.log), (2, math.log2)], ids=["nats", "bits"])
def test_description_length_follows_spec_a3(asia_df, asia_model, log_base, log):
    """MDL(B|D) = (log N / 2)|B| - LL(B|D), |B| = sum_i q_i (r_i - 1), LL from pgmpy's LogLikelihood."""
    df = _with_nan(asia_df, 0.03, 5)  # N counts every row, as in pgmpy's BIC
    mdl = MDLScore(df, log_base=log_base)
    cards = {v: len(s) for v, s in mdl.state_names.items()}
    n_params = sum(math.prod(cards[p] for p in asia_model.get_parents(v)) * (cards[v] - 1) for v in asia_model)
    ll = LogLikelihood(df).score(asia_model) / (1.0 if log_base == "e" else math.log(2))
    want = log(len(df)) / 2 * n_params - ll
    got = mdl.description_length(asia_model)
    assert got > 0
    assert got == pytest.approx(want, rel=1e-9)
    assert got == pytest.approx(-mdl.score(asia_model), rel=1e-15)
    if log_base == "e":
        assert got == pytest.approx(-BIC(df).score(asia_model), rel=1e-9)
