"""pgmpy_ext.dask with narrow codes: encoded and persisted partitions are int8 / int16 by default
(``codes_dtype="auto"``), and every result is bit-identical to int32 partitions (threads scheduler).

Skipped, with a message, when dask is not installed (``pip install 'pgmpy-ext[dask]'``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

dask = pytest.importorskip("dask", reason="pgmpy_ext.dask needs dask: pip install 'pgmpy-ext[dask]'")
dd = pytest.importorskip("dask.dataframe", reason="pgmpy_ext.dask needs dask[dataframe]")

import pgmpy_ext.dask as pdask  # noqa: E402
from pgmpy_ext.data import encode  # noqa: E402
from pgmpy_ext.stats import LatentClassLayout, family_counts_many, pairwise_counts  # noqa: E402


def _frame(seed: int, n: int = 600, wide: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 3, n)
    df = pd.DataFrame({
        "a": ((c + rng.integers(0, 2, n)) % 4).astype(float),
        "b": np.array(["x", "y", "z"], dtype=object)[(c + rng.integers(0, 2, n)) % 3],
        "f": rng.random(n) < 0.3,
        # 128 states: codes up to 127, the top of int8 (or 300 states: int16)
        "h": pd.Categorical((c * 37 + rng.integers(0, 40, n)) % (300 if wide else 128),
                            categories=list(range(300 if wide else 128))),
        "y": np.array(["u", "v", "w"], dtype=object)[c],
        "w": rng.random(n) * 2,
    })
    df["a"] = df["a"].where(rng.random(n) >= 0.1)  # missing cells
    return df


def _ddf(df: pd.DataFrame, seed: int):
    rng = np.random.default_rng(seed)
    cuts = sorted({0, *np.sort(rng.integers(0, len(df) + 1, 5)).tolist(), len(df)})
    parts = [df.iloc[lo:hi] for lo, hi in zip(cuts[:-1], cuts[1:])]
    parts.insert(1, df.iloc[0:0])  # an empty partition
    return dd.from_map(lambda f: f, parts, meta=df.iloc[0:0], enforce_metadata=False)


@pytest.mark.parametrize("wide", [False, True], ids=["int8", "int16"])
def test_narrow_partitions_give_identical_results(wide):
    df = _frame(5, wide=wide)
    ddf = _ddf(df, 5)
    with dask.config.set(scheduler="threads"):
        narrow = pdask.encode(ddf, missing="skip", weights="w").persist()
        wide32 = pdask.encode(ddf, missing="skip", weights="w", codes_dtype="int32").persist()
        expect = np.int16 if wide else np.int8
        parts = dask.compute(*narrow.parts)
        assert {p.kernel_codes.dtype for p in parts} == {np.dtype(expect)}  # empty partitions included
        assert all(p.codes.dtype == np.int32 for p in parts)
        assert {p.kernel_codes.dtype for p in dask.compute(*wide32.parts)} == {np.dtype(np.int32)}
        assert sum(p.kernel_codes.nbytes for p in parts) * (4 // np.dtype(expect).itemsize) == \
            sum(p.kernel_codes.nbytes for p in dask.compute(*wide32.parts))
        fams = [("h", ["b", "y"]), ("a", ["h"]), ("f", [])]
        for got, ref in zip(pdask.family_counts_many(narrow, fams), pdask.family_counts_many(wide32, fams)):
            assert_array_equal(got, ref)
        assert_array_equal(pdask.pairwise_counts(narrow, cond="y").flat,
                           pdask.pairwise_counts(wide32, cond="y").flat)
        comp, comp32 = pdask.compress(narrow), pdask.compress(wide32)
        assert comp.codes_dtype == np.int32  # compressed data is int32 (the learners read .codes many times)
        assert_array_equal(comp.codes, comp32.codes)
        assert_array_equal(comp.weights, comp32.weights)
        # and equal to the in-memory counts (missing cells skipped; float weights summed per partition, then in the
        # tree: round-off only)
        mem = encode(df.drop(columns="w"), states=narrow.state_names, weights=df["w"].to_numpy(), missing="skip")
        for got, ref in zip(pdask.family_counts_many(narrow, fams), family_counts_many(mem, fams)):
            assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
        assert_allclose(pdask.pairwise_counts(narrow, cond="y").flat, pairwise_counts(mem, cond="y").flat,
                        rtol=1e-12, atol=1e-12)
        # latent-class E step over persisted distinct parts: narrow parts stay narrow, results identical
        dist, dist32 = pdask.persist_distinct(narrow), pdask.persist_distinct(wide32)
        assert {p.kernel_codes.dtype for p in dask.compute(*dist.parts)} == {np.dtype(expect)}
        rng = np.random.default_rng(0)
        lay = LatentClassLayout.build(narrow.cards, 3)
        theta = np.concatenate([rng.dirichlet(np.ones(c), size=3).T for c in narrow.cards])
        args = (lay, np.log(theta), np.log(np.full(3, 1 / 3)))
        got, ref = pdask.latent_class_estep(dist, *args, theta=theta), pdask.latent_class_estep(dist32, *args,
                                                                                              theta=theta)
        assert got.loglik == ref.loglik
        assert_array_equal(got.counts, ref.counts)
        assert_array_equal(got.cluster_counts, ref.cluster_counts)


def test_explicit_int8_is_refused_before_any_pass():
    ddf = _ddf(_frame(6, wide=True), 6)
    with pytest.raises(ValueError, match="codes_dtype='int8' holds codes up to 127.*has 300 states"):
        pdask.encode(ddf, weights="w", codes_dtype="int8")
