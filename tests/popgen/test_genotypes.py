"""Genotype inputs, the STRUCTURE reader/writer and the generators."""

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.datasets import make_balding_nichols, make_toy_bitstrings
from pgmpy_ext.io import read_structure, write_structure
from pgmpy_ext.popgen import Genotypes, as_genotypes


def test_allele_array_codes_are_variable_major_with_labels():
    a = np.array([[[150, 152], [3, -9]], [[152, 152], [4, 3]]])
    before = a.copy()
    g = as_genotypes(a)
    np.testing.assert_array_equal(a, before)
    assert g.allele_labels == [[150, 152], [3, 4]]
    np.testing.assert_array_equal(g.codes, [[0, 1, 0, -1], [1, 1, 1, 0]])
    assert g.codes.dtype == np.int32
    assert g.codes.flags.c_contiguous
    np.testing.assert_array_equal(g.cards, [2, 2])


def test_dosage_matrix_and_frame():
    X = pd.DataFrame({"rs1": [0, 1, 2, np.nan], "rs2": [2, 2, 2, 1]}, index=["a", "b", "c", "d"])
    before = X.copy()
    g = as_genotypes(X)
    pd.testing.assert_frame_equal(X, before)
    assert g.loci == ["rs1", "rs2"]
    assert list(g.individuals) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(g.alleles[:, 0, :].sum(axis=1), [0, 1, 2, -2])  # missing genotype = two -1
    np.testing.assert_array_equal(g.allele_counts(impute=False)[:, 1], [0, 1, 2, 0])
    assert g.polymorphic.tolist() == [True, True]


def test_string_alleles_and_missing_none():
    a = np.array([[["A", "C"]], [["C", None]]], dtype=object)
    g = as_genotypes(a)
    assert g.allele_labels == [["A", "C"]]
    np.testing.assert_array_equal(g.codes, [[0, 1], [1, -1]])


def test_subset_rederives_labels():
    g = as_genotypes(np.array([[[1], [5]], [[1], [6]]]), ploidy=1)
    sub = g.subset(loci=[0])
    assert sub.allele_labels == [[1]]
    assert not sub.polymorphic[0]


@pytest.mark.parametrize("one_row", [False, True], ids=["two_rows", "one_row"])
@pytest.mark.parametrize("ploidy", [1, 2], ids=["haploid", "diploid"])
def test_structure_round_trip(tmp_path, one_row, ploidy):
    rng = np.random.default_rng(0)
    raw = rng.choice([100, 102, 104], size=(6, 4, ploidy))
    raw[1, 2, :] = -9
    raw[3, 0, 0] = -9
    g = as_genotypes(raw, ploidy=ploidy, populations=[1, 1, 2, 2, 3, 3], individuals=[f"i{k}" for k in range(6)])
    path = tmp_path / "g.str"
    g.to_structure(path, one_row_per_individual=one_row)
    back = as_genotypes(read_structure(path, ploidy=ploidy, one_row_per_individual=one_row if ploidy > 1 else None))
    np.testing.assert_array_equal(back.alleles, g.alleles)
    assert back.allele_labels == g.allele_labels
    assert back.loci == g.loci
    assert back.populations.tolist() == [1, 1, 2, 2, 3, 3]
    assert back.individuals.tolist() == [f"i{k}" for k in range(6)]
    # auto-detection of the row layout for diploid files
    if ploidy == 2:
        auto = as_genotypes(str(path), ploidy=2)
        np.testing.assert_array_equal(auto.alleles, g.alleles)


def test_structure_location_column_and_no_header(tmp_path):
    p = tmp_path / "x.str"
    write_structure(p, np.array([[[1, 2]], [[2, 2]]]), individuals=["a", "b"], populations=[1, 2],
                    locations=[7, 8], header=False)
    s = read_structure(p, loc_data=True)
    assert s.locations.tolist() == [7, 8]
    assert s.alleles.shape == (2, 1, 2)


@pytest.mark.parametrize("name", ["rs 1", "", "rs\t2", " rs3"], ids=["space", "empty", "tab", "leading"])
def test_structure_locus_names_must_read_back(tmp_path, name):
    a = np.array([[[1, 2], [1, 1]], [[2, 2], [1, 2]]])
    with pytest.raises(ValueError, match="is empty or contains whitespace"):
        write_structure(tmp_path / "x.str", a, loci=["ok", name])
    write_structure(tmp_path / "y.str", a, loci=["ok", name], header=False)  # no header: nothing to read back
    assert read_structure(tmp_path / "y.str", header=False, pop_data=False).loci == ["L0", "L1"]
    write_structure(tmp_path / "z.str", a, loci=["ok", str(name).replace(" ", "_").replace("\t", "_") or "L1"])
    assert len(read_structure(tmp_path / "z.str", pop_data=False).loci) == 2


def test_structure_bad_files(tmp_path):
    p = tmp_path / "bad.str"
    p.write_text("a 1 1 2\na 1 1\n")
    with pytest.raises(ValueError, match="has 3 fields"):
        read_structure(p)
    p.write_text("a 1 1 2\nb 1 1 2\n")
    with pytest.raises(ValueError, match="labels"):
        read_structure(p, one_row_per_individual=False)


def test_bad_input_errors_and_nothing_modified():
    a = np.array([[[0, 1], [1, 1]], [[-9, -9], [-9, -9]]])
    before = a.copy()
    with pytest.raises(ValueError, match="every locus missing"):
        as_genotypes(a)
    np.testing.assert_array_equal(a, before)
    with pytest.raises(ValueError, match="ploidy mismatch"):
        as_genotypes(np.zeros((2, 3, 2), dtype=int), ploidy=1)
    with pytest.raises(ValueError, match="allele code out of range"):
        as_genotypes(np.array([[0, 3], [1, 1]]))  # a diploid dosage cannot be 3
    with pytest.raises(ValueError, match="allele code out of range"):
        as_genotypes(np.array([[[0, -4]], [[1, 1]]]))
    with pytest.raises(TypeError, match="dosages are numbers"):
        as_genotypes(pd.DataFrame({"x": ["a", "b"]}))
    with pytest.raises(ValueError, match="ploidy mismatch"):
        as_genotypes(as_genotypes(np.zeros((2, 1, 2), dtype=int) + [[[0, 1]]]), ploidy=3)


def test_genotypes_passes_through():
    g = as_genotypes(np.array([[0, 1], [2, 1]]))
    assert as_genotypes(g) is g
    assert isinstance(g, Genotypes)


def test_toy_generator_definition():
    a, pop, info = make_toy_bitstrings(return_informative=True, random_state=3)
    assert a.shape == (60, 50, 1)
    assert set(a.ravel()) <= {0, 1}
    anc = {p: a[np.flatnonzero(pop == p)[0], :, 0] for p in "ABC"}
    assert np.flatnonzero(anc["A"] != anc["B"]).tolist() == info["AB"].tolist()
    assert np.flatnonzero(anc["A"] != anc["C"]).tolist() == info["AC"].tolist()
    assert int((anc["B"] != anc["C"]).sum()) == 5
    assert (pop == "A").sum() == (pop == "B").sum() == 20


def test_balding_nichols_fst_and_missing():
    a, pop = make_balding_nichols(n_individuals=400, n_populations=2, n_loci=400, fst=0.1, missing_rate=0.1,
                                  random_state=0)
    miss = a == -9
    assert abs(miss[:, :, 0].mean() - 0.1) < 0.01
    assert np.array_equal(miss[:, :, 0], miss[:, :, 1])
    # two populations, each at F from the ancestor: Nei's G_ST = E(p1-p2)^2/4 / (pbar(1-pbar)) ~ F/(2-F) = 0.053
    freq = np.array([np.nanmean(np.where(a[pop == j] == -9, np.nan, a[pop == j]), axis=(0, 2)) for j in (0, 1)])
    pbar = freq.mean(axis=0)
    fst = np.mean((freq[0] - freq[1]) ** 2 / 4) / np.mean(pbar * (1 - pbar))
    assert 0.04 < fst < 0.07
    b, _ = make_balding_nichols(n_individuals=30, n_loci=5, n_alleles=[2, 3, 8, 1, 20], random_state=1)
    assert b[:, 3].max() == 0
    assert b[:, 4].max() <= 19
