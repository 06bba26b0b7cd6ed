"""Narrow codes: the fused int8 / int16 / int32 kernels against numpy references, and EncodedData's narrow storage.

The kernels take ``const fcode_t[:, ::1] X`` (cython_core/_fcode.pxd). Every fused kernel is checked on each dtype
against a plain-numpy reference on random data with missing cells and weights, with a column whose largest code is
the top of the dtype's range (127 for int8, so any arithmetic formed in the narrow type would overflow)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._core import _counting
from pgmpy_ext.data import EncodedData, codes_dtype_for, encode, kernel_codes
from pgmpy_ext.stats import (
    HIDDEN,
    LatentClassLayout,
    NetworkLayout,
    conditional_log_likelihood,
    estep_accumulate,
    family_counts,
    family_counts_codes,
    family_counts_many,
    latent_class_estep,
    latent_class_log_joint,
    log_joint_batch,
    pair_offsets,
    pairwise_counts,
    posterior_batch,
    unique_rows,
)
from tests.reference import family_counts_ref, pairwise_counts_ref, unique_rows_ref

#: per dtype, cardinalities whose widest column needs exactly that dtype (128 states: codes 0..127 fill int8)
CARDS = {np.int8: [2, 3, 128, 4, 2], np.int16: [2, 3, 300, 4, 2], np.int32: [2, 3, 40000, 4, 2]}
DTYPES = [np.int8, np.int16, np.int32]


def _codes(dtype, n=400, missing=0.1, seed=0):
    rng = np.random.default_rng(seed)
    cards = np.asarray(CARDS[dtype], dtype=np.intp)
    X = np.stack([rng.integers(0, c, n) for c in cards], axis=1)
    X[: cards.shape[0], np.arange(cards.shape[0])] = cards - 1  # the largest code of every column occurs
    X[rng.random(X.shape) < missing] = -1
    w = rng.random(n) * 3
    return X.astype(dtype), cards, w


def _data(X, cards, w=None):
    return EncodedData(X, [f"v{k}" for k in range(len(cards))], [list(range(c)) for c in cards], weights=w,
                       missing="skip")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_family_counts_match_reference(dtype, weighted):
    X, cards, w = _codes(dtype)
    w = w if weighted else None
    data = _data(X, cards)
    assert data.kernel_codes.dtype == dtype
    fams = [("v2", ["v0", "v1"]), ("v3", []), ("v0", ["v4", "v3"])]
    for child, parents in fams:
        cols = [int(child[1:])] + [int(p[1:]) for p in parents]
        ref = family_counts_ref(X.astype(np.int64), cols, cards[cols], w)
        assert_array_equal(family_counts(data, child, parents, weights=w, sort_parents=False), ref)
        assert_array_equal(family_counts_codes(X, cols, cards[cols], w), ref)
    many = family_counts_many(data, fams, weights=w)
    for (child, parents), got in zip(fams, many):
        cols = [int(child[1:])] + [int(p[1:]) for p in parents]
        assert_array_equal(got, family_counts_ref(X.astype(np.int64), cols, cards[cols], w))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(("weighted", "grouping"), [(False, 0), (False, 1), (True, -1)],
                         ids=["plain", "grouped", "weighted"])
@pytest.mark.parametrize("missing", [0.0, 0.1], ids=["complete", "missing"])
def test_pairwise_counts_match_reference(dtype, weighted, grouping, missing):
    X, cards, w = _codes(dtype, missing=missing)
    w = w if weighted else None
    feats = [0, 1, 3, 4, 2] if dtype is np.int8 else [0, 1, 3, 4]  # small features: the grouped path applies
    cond = 2 if dtype is not np.int8 else 3
    feats = [f for f in feats if f != cond]
    fc, cc = cards[feats], int(cards[cond])
    off = pair_offsets(fc, cc)
    out = np.zeros(int(off[-1]))
    wk = np.empty(0) if w is None else w
    _counting.pairwise_counts(X, np.asarray(feats, dtype=np.intp), fc, cond, cc, wk, off, out, 1, grouping)
    ref = pairwise_counts_ref(X.astype(np.int64), feats, fc, cond, cc, w)
    p = 0
    for i in range(len(feats)):
        for j in range(i + 1, len(feats)):
            assert_array_equal(out[off[p]:off[p + 1]], ref[(i, j)].ravel())
            p += 1
    # the wrapper on EncodedData reads the narrow codes too
    data = _data(X, cards)
    pc = pairwise_counts(data, [f"v{k}" for k in feats], cond=f"v{cond}", weights=w)
    assert_array_equal(pc.flat, out)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("wide", [False, True], ids=["one_word", "multi_word"])
def test_unique_rows_match_reference(dtype, wide):
    X, cards, w = _codes(dtype, n=300)
    X = X[:, [0, 1, 3, 4]] if not wide else np.concatenate([X] * 6, axis=1)  # 30 columns: several key words
    cards = cards[[0, 1, 3, 4]] if not wide else np.tile(cards, 6)
    X = np.concatenate([X, X[:50]])  # duplicates
    w = np.concatenate([w, w[:50]])
    ref_codes, ref_counts = unique_rows_ref(X.astype(np.int64), w)
    u = unique_rows(X, cards, w)
    assert u.codes.dtype == np.int32  # distinct rows come back int32 (callers may do arithmetic on them)
    assert_array_equal(u.codes, ref_codes)
    assert_allclose(u.counts, ref_counts, rtol=1e-12)
    assert_array_equal(u.codes[u.inverse], X)
    kept = unique_rows(X, cards, w, keep_dtype=True)
    assert kept.codes.dtype == dtype
    assert_array_equal(kept.codes, ref_codes)


def _latent_ref(X, cards, log_theta, log_prior, w, theta):
    """Plain numpy E step of the latent-class model with missing cells summed out (counts: imputed)."""
    offsets = np.concatenate([[0], np.cumsum(cards)])
    n, K = X.shape[0], log_prior.shape[0]
    L = np.tile(log_prior, (n, 1))
    for c in range(X.shape[1]):
        obs = X[:, c] >= 0
        L[obs] += log_theta[offsets[c] + X[obs, c].astype(np.int64)]
    mx = L.max(axis=1, keepdims=True)
    lse = (mx + np.log(np.exp(L - mx).sum(axis=1, keepdims=True)))[:, 0]
    q = np.exp(L - lse[:, None])
    counts = np.zeros((offsets[-1], K))
    for d in range(n):
        for c in range(X.shape[1]):
            x = int(X[d, c])
            if x >= 0:
                counts[offsets[c] + x] += w[d] * q[d]
            else:
                counts[offsets[c]:offsets[c + 1]] += w[d] * q[d] * theta[offsets[c]:offsets[c + 1]]
    return float(w @ lse), q, counts, (w[:, None] * q).sum(axis=0), L


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_latent_class_estep_and_log_joint_match_reference(dtype):
    X, cards, w = _codes(dtype, n=200)
    K = 3
    rng = np.random.default_rng(1)
    lay = LatentClassLayout.build(cards, K)
    theta = np.concatenate([rng.dirichlet(np.ones(c), size=K).T for c in cards])
    prior = rng.dirichlet(np.ones(K))
    lt, lp = np.log(theta), np.log(prior)
    ll, q, counts, nc, L = _latent_ref(X, cards, lt, lp, w, theta)
    for check in (True, False):
        res = latent_class_estep(lay, X, w, lt, lp, theta=theta, return_resp=True, check=check)
        assert_allclose(res.loglik, ll, rtol=1e-12)
        assert_allclose(res.resp, q, rtol=1e-10, atol=1e-14)
        assert_allclose(res.counts, counts, rtol=1e-10, atol=1e-12)
        assert_allclose(res.cluster_counts, nc, rtol=1e-12)
    assert_allclose(latent_class_log_joint(lay, X, lt, lp), L, rtol=1e-12)
    # bit-identical to the int32 kernel on the same codes
    res32 = latent_class_estep(lay, X.astype(np.int32), w, lt, lp, theta=theta, return_resp=True)
    res = latent_class_estep(lay, X, w, lt, lp, theta=theta, return_resp=True)
    assert res.loglik == res32.loglik
    assert_array_equal(res.counts, res32.counts)
    assert_array_equal(res.resp, res32.resp)


def _nb_network(cards, rng):
    """Naive Bayes over columns v0..v4 with the hidden class H (3 states), its layout and log-CPT."""
    names = [f"v{k}" for k in range(len(cards))]
    parents = {"H": [], **{v: ["H"] for v in names}}
    card_map = {"H": 3, **{v: int(c) for v, c in zip(names, cards)}}
    lay = NetworkLayout.build(parents, card_map, names, "H")
    tables = {"H": rng.dirichlet(np.ones(3)), **{v: rng.dirichlet(np.ones(card_map[v]), size=3).T for v in names}}
    return lay, tables, lay.pack(tables, log=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_posterior_kernels_match_reference(dtype):
    X, cards, w = _codes(dtype, n=300, missing=0.0)
    rng = np.random.default_rng(2)
    lay, tables, log_cpt = _nb_network(cards, rng)
    # numpy reference: log p(h, x) = log P(h) + sum_v log P(x_v | h)
    ref = np.tile(np.log(tables["H"]), (X.shape[0], 1))
    for k in range(X.shape[1]):
        ref += np.log(tables[f"v{k}"][X[:, k].astype(np.int64)])
    assert_allclose(log_joint_batch(lay, log_cpt, X), ref, rtol=1e-12)
    X32 = X.astype(np.int32)
    assert_array_equal(log_joint_batch(lay, log_cpt, X), log_joint_batch(lay, log_cpt, X32))
    assert_array_equal(posterior_batch(lay, log_cpt, X)[0], posterior_batch(lay, log_cpt, X32)[0])
    e, e32 = estep_accumulate(lay, log_cpt, X, w, return_resp=True), estep_accumulate(lay, log_cpt, X32, w,
                                                                                     return_resp=True)
    assert e.loglik == e32.loglik
    assert_array_equal(e.counts, e32.counts)
    lse = np.logaddexp.reduce(ref, axis=1)
    assert_allclose(e.loglik, float(w @ lse), rtol=1e-12)
    y = rng.integers(0, 3, X.shape[0])
    c, c32 = (conditional_log_likelihood(lay, log_cpt, Z, y, w, return_gradient=True) for Z in (X, X32))
    assert c.cll == c32.cll
    assert_array_equal(c.gradient, c32.gradient)
    assert_allclose(c.cll, float(w @ (ref[np.arange(len(y)), y] - lse)), rtol=1e-12)
    # missing cells summed out (skip_missing): narrow equals int32
    Xm = X.copy()
    Xm[rng.random(Xm.shape) < 0.1] = -1
    assert_array_equal(log_joint_batch(lay, log_cpt, Xm, skip_missing=True),
                       log_joint_batch(lay, log_cpt, Xm.astype(np.int32), skip_missing=True))
    assert HIDDEN == -1


# ------------------------------------------------------------------ EncodedData / encode
def _frame(n=500, seed=0, wide_object=False):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n),
        "b": pd.Categorical(rng.choice(["x", "y", "z"], n)),
        "c": rng.random(n) < 0.5,
        "d": np.array([f"s{k}" for k in range(128)], dtype=object)[rng.integers(0, 128, n)],
    })
    if wide_object:  # an object column with 200 states after the others: the matrix widens to int16
        df["e"] = np.array([f"t{k:03d}" for k in range(200)], dtype=object)[np.arange(n) % 200]
    return df


def test_encode_auto_picks_the_narrowest_dtype_and_same_codes():
    df = _frame()
    ref = encode(df)
    assert ref.kernel_codes.dtype == np.int32
    assert ref.codes_dtype == np.int32
    nar = encode(df, codes_dtype="auto")
    assert nar.kernel_codes.dtype == np.int8  # 128 states still fit int8 (codes 0..127)
    assert nar.codes.dtype == np.int32
    assert nar.codes.flags.c_contiguous
    assert not nar.codes.flags.writeable  # a copy: writing into it would be lost, so it refuses
    assert_array_equal(nar.codes, ref.codes)
    assert nar.states == ref.states
    assert nar.kernel_codes.nbytes * 4 == ref.kernel_codes.nbytes
    wide = encode(_frame(wide_object=True), codes_dtype="auto")
    assert wide.kernel_codes.dtype == np.int16
    assert_array_equal(wide.codes, encode(_frame(wide_object=True)).codes)
    # the dtype survives take / select / with_weights / transform
    for derived in (nar.take([0, 2, 4]), nar.select(["d", "a"]), nar.with_weights(np.ones(len(df))),
                    nar.transform(df.iloc[:7])):
        assert derived.kernel_codes.dtype == np.int8
    assert_array_equal(nar.transform(df.iloc[:7]).codes, ref.codes[:7])
    assert "codes_dtype='int8'" in repr(nar)


def test_int8_is_refused_when_a_cardinality_does_not_fit():
    df = _frame(wide_object=True)
    with pytest.raises(ValueError, match="codes_dtype='int8' holds codes up to 127.*has 200 states"):
        encode(df, codes_dtype="int8")
    with pytest.raises(ValueError, match="codes_dtype='int8' holds codes up to 127.*has 129 states"):
        encode(df[["a"]], states={"a": list(range(129))}, codes_dtype="int8")
    assert encode(df, codes_dtype="int16").kernel_codes.dtype == np.int16
    with pytest.raises(ValueError, match="codes_dtype == 'int64', must be one of"):
        encode(df, codes_dtype="int64")
    with pytest.raises(ValueError, match="cannot hold 200 states"):
        EncodedData(np.zeros((2, 1), dtype=np.int8), ["e"], [list(range(200))])
    assert codes_dtype_for([129]) == np.int16
    assert codes_dtype_for([128], "int8") == np.int8


def test_kernel_codes_helper_and_plain_construction():
    assert kernel_codes(np.zeros((2, 2), dtype=np.int16)).dtype == np.int16
    assert kernel_codes(np.zeros((2, 2), dtype=np.uint8)).dtype == np.int32  # unsigned: -1 would not exist
    assert EncodedData(np.zeros((2, 1), dtype=np.int64), ["a"], [[0, 1]]).codes_dtype == np.int32
    d = EncodedData(np.zeros((2, 1), dtype=np.int8), ["a"], [[0, 1]])
    assert d.codes_dtype == np.int8
    assert d.codes.dtype == np.int32
    assert EncodedData(np.zeros((2, 1), dtype=np.int8), ["a"], [[0, 1]], codes_dtype="int32").codes_dtype == np.int32


def test_int32_view_prevents_narrow_overflow():
    """The disaster narrow codes could cause, and why .codes is int32: int8 arithmetic wraps silently."""
    d = encode(pd.DataFrame({"a": pd.Categorical(np.arange(128) % 128), "b": pd.Categorical(np.arange(128) % 2)}),
               codes_dtype="auto")
    raw = d.kernel_codes
    assert raw.dtype == np.int8
    with np.errstate(over="ignore"):
        wrapped = raw[:, 0] * 2 + raw[:, 1]  # what a consumer doing mixed-radix arithmetic would compute
    assert wrapped.min() < 0  # 127 * 2 wrapped around: a wrong (negative) index
    safe = d.codes[:, 0] * 2 + d.codes[:, 1]
    assert safe.min() >= 0
    assert safe.max() == 127 * 2 + 1


def test_encode_alarm_sized_frame_holds_one_byte_per_cell():
    """1M rows x 37 columns with alarm-like cardinalities (2-4 states): 37 MB of codes instead of 148 MB."""
    rng = np.random.default_rng(0)
    n, m = 1_000_000, 37
    cards = rng.integers(2, 5, m)
    df = pd.DataFrame({f"X{k}": pd.Categorical.from_codes(rng.integers(0, cards[k], n).astype(np.int8),
                                                          categories=[f"s{j}" for j in range(cards[k])])
                       for k in range(m)})
    nar = encode(df, codes_dtype="auto")
    assert nar.kernel_codes.dtype == np.int8
    assert nar.kernel_codes.nbytes == n * m == 37_000_000
    assert nar.kernel_codes.flags.c_contiguous
    sample = nar.codes[::9973]
    for k in (0, 17, 36):
        assert_array_equal(sample[:, k], df.iloc[::9973, k].cat.codes.to_numpy())


@pytest.mark.parametrize("wide_at", [0, 7, 8, 9, 19])
def test_encode_widens_at_any_column_of_the_staging_groups(wide_at):
    """An object column with 300 states (int16) anywhere among 20 narrow columns: the codes equal int32's."""
    rng = np.random.default_rng(wide_at)
    n = 257
    df = pd.DataFrame({f"c{k}": rng.choice(["p", "q", "r"], n) for k in range(20)})
    df[f"c{wide_at}"] = np.array([f"w{j:03d}" for j in range(300)], dtype=object)[rng.integers(0, 300, n)]
    ref = encode(df)
    got = encode(df, codes_dtype="auto")
    assert got.kernel_codes.dtype == np.int16
    assert_array_equal(got.kernel_codes, ref.kernel_codes)
    assert got.states == ref.states


def test_pickle_keeps_the_dtype_and_reads_older_pickles():
    import pickle

    d = encode(_frame(), codes_dtype="auto")
    back = pickle.loads(pickle.dumps(d))
    assert back.codes_dtype == np.int8
    assert_array_equal(back.codes, d.codes)
    legacy = object.__new__(EncodedData)  # the state an EncodedData pickled before narrow codes carried
    state = dict(back.__dict__)
    state["codes"] = state.pop("_codes").astype(np.int32)
    legacy.__setstate__(state)
    assert_array_equal(legacy.codes, d.codes)
    assert legacy.n_rows == d.n_rows
