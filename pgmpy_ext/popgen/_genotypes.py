"""Genotype data: allele arrays, SNP dosage matrices and STRUCTURE files -> int32 allele codes.

Every popgen estimator and function takes any of these inputs through :func:`as_genotypes`:

* a :class:`Genotypes` (passed through);
* a path to a STRUCTURE-format file (read with ``pgmpy_ext.io.read_structure``) or a ``StructureData``;
* a 3-d array ``(individuals, loci, ploidy)`` of allele labels (any integers, e.g. microsatellite repeat lengths,
  or strings such as ``"A"``); missing copies are ``-9``, ``-1``, ``None`` or NaN;
* a 2-d array or DataFrame of SNP **dosages** (0..ploidy copies of the alternative allele; NaN, ``-9`` or ``-1`` =
  missing genotype). A DataFrame's columns name the loci and its index names the individuals.

The codes are **variable-major** (``docs/decisions/seed001-ema-popgen.md``, "Data model and encoding"): locus ``i``'s
``P`` copies are columns ``i*P .. i*P+P-1`` of the
``(N, n_loci*P)`` int32 matrix, ``-1`` = missing copy, so the latent-class engine's ``ploidy`` layout reads them
directly. Allele labels are kept per locus (sorted), and allele ``k`` of locus ``i`` is code ``k``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pgmpy_ext.io import StructureData, read_structure, write_structure

__all__ = ["Genotypes", "as_genotypes"]


def _sort_labels(values) -> list:
    try:
        return sorted(set(values))
    except TypeError:
        return sorted(set(values), key=lambda v: (type(v).__name__, str(v)))


@dataclass
class Genotypes:
    """Encoded genotypes of ``N`` individuals at ``n_loci`` loci with ``ploidy`` allele copies each.

    Attributes
    ----------
    alleles : ndarray of int32 (N, n_loci, ploidy)
        Allele codes, ``-1`` = missing copy; code ``k`` at locus ``i`` is ``allele_labels[i][k]``.
    allele_labels : list of list
        Per locus, the distinct observed allele labels in sorted order (Python scalars).
    loci : list
        Locus names.
    individuals : ndarray (N,)
        Individual labels (used in error messages and plots).
    populations, locations : ndarray (N,) or None
        Optional population / sampling-location labels (STRUCTURE's POPDATA / LOCDATA).
    """

    alleles: np.ndarray
    allele_labels: list
    loci: list
    individuals: np.ndarray
    populations: np.ndarray | None = None
    locations: np.ndarray | None = None
    _cards: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self.alleles = np.ascontiguousarray(self.alleles, dtype=np.int32)
        if self.alleles.ndim != 3:
            raise ValueError(f"alleles must be (individuals, loci, ploidy), got shape {self.alleles.shape}.")
        self._cards = np.array([len(lab) for lab in self.allele_labels], dtype=np.intp)
        if len(self._cards) != self.alleles.shape[1] or len(self.loci) != self.alleles.shape[1]:
            raise ValueError("allele_labels and loci need one entry per locus.")

    @property
    def n_individuals(self) -> int:
        return self.alleles.shape[0]

    @property
    def n_loci(self) -> int:
        return self.alleles.shape[1]

    @property
    def ploidy(self) -> int:
        return self.alleles.shape[2]

    @property
    def cards(self) -> np.ndarray:
        """Number of distinct observed alleles per locus, ``(n_loci,)`` intp."""
        return self._cards.copy()

    @property
    def codes(self) -> np.ndarray:
        """The variable-major ``(N, n_loci*ploidy)`` C-contiguous int32 code matrix (``-1`` = missing)."""
        return self.alleles.reshape(self.n_individuals, -1)

    @property
    def polymorphic(self) -> np.ndarray:
        """Boolean mask of loci with at least two observed alleles (the others carry no information)."""
        return self._cards >= 2

    def allele_counts(self, *, impute: bool = True) -> np.ndarray:
        """Per-individual allele counts, ``(N, sum(cards))`` float64 (locus-major blocks).

        Missing copies are filled with the locus' mean allele frequency times the number of missing copies when
        ``impute`` (the usual PCA input), else left out. For biallelic SNPs the second column of each block is
        the 0..ploidy dosage.
        """
        offsets = np.concatenate([[0], np.cumsum(self._cards)]).astype(np.intp)
        out = np.zeros((self.n_individuals, int(offsets[-1])))
        a = self.alleles
        for k in range(int(self._cards.max(initial=0))):  # vectorised over loci: allele k of every locus that has it
            has = self._cards > k
            out[:, offsets[:-1][has] + k] = (a[:, has, :] == k).sum(axis=2)
        if impute:
            n_miss = (a < 0).sum(axis=2)  # (N, n_loci)
            if n_miss.any():
                totals = out.sum(axis=0)
                per_locus = np.add.reduceat(totals, offsets[:-1]) if len(totals) else totals
                locus_of = np.repeat(np.arange(self.n_loci), self._cards)
                freq = totals / np.maximum(per_locus[locus_of], 1.0)
                out += n_miss[:, locus_of] * freq[None, :]
        return out

    def subset(self, loci=None, individuals=None) -> Genotypes:
        """A new Genotypes restricted to a locus mask/index list and/or an individual mask/index list.

        Allele labels are re-derived, so a locus that becomes monomorphic has one label.
        """
        li = np.arange(self.n_loci) if loci is None else np.flatnonzero(_as_mask(loci, self.n_loci))
        di = np.arange(self.n_individuals) if individuals is None else np.flatnonzero(
            _as_mask(individuals, self.n_individuals))
        raw = self.alleles[np.ix_(di, li)]
        labels, new = [], np.full(raw.shape, -1, dtype=np.int32)
        for t, i in enumerate(li):
            present = np.unique(raw[:, t, :][raw[:, t, :] >= 0])
            labels.append([self.allele_labels[i][k] for k in present])
            lookup = np.full(max(self._cards[i], 1), -1, dtype=np.int32)
            lookup[present] = np.arange(len(present), dtype=np.int32)
            obs = raw[:, t, :] >= 0
            new[:, t, :][obs] = lookup[raw[:, t, :][obs]]
        def pick(v):
            return (None if v is None else np.asarray(v)[di])
        return Genotypes(new, labels, [self.loci[i] for i in li], np.asarray(self.individuals)[di],
                         pick(self.populations), pick(self.locations))

    def to_labels(self, missing=-9) -> np.ndarray:
        """The ``(N, n_loci, ploidy)`` array of original allele labels (object dtype), ``missing`` where missing."""
        out = np.empty(self.alleles.shape, dtype=object)
        for i in range(self.n_loci):
            lab = np.asarray(list(self.allele_labels[i]) + [missing], dtype=object)
            out[:, i, :] = lab[self.alleles[:, i, :]]  # code -1 picks the appended missing value
        return out

    def to_structure(self, path, *, one_row_per_individual: bool = False, missing_code: int = -9) -> None:
        """Write a STRUCTURE-format file (see ``pgmpy_ext.io.write_structure``)."""
        write_structure(path, self.to_labels(missing_code), missing=self.alleles < 0, individuals=self.individuals,
                        populations=self.populations, locations=self.locations, loci=self.loci,
                        one_row_per_individual=one_row_per_individual, missing_code=missing_code)


def _as_mask(sel, n: int) -> np.ndarray:
    sel = np.asarray(sel)
    if sel.dtype == bool:
        if sel.shape != (n,):
            raise ValueError(f"boolean mask has shape {sel.shape}, expected ({n},).")
        return sel
    mask = np.zeros(n, dtype=bool)
    mask[sel.astype(np.intp)] = True
    return mask


def _is_missing_cell(v, missing_codes) -> bool:
    if v is None:
        return True
    if isinstance(v, (float, np.floating)) and np.isnan(v):
        return True
    if isinstance(v, (int, np.integer, float, np.floating)) and v in missing_codes:
        return True
    return False


def _from_small_ints(raw: np.ndarray, missing: np.ndarray):
    """Vectorised encoding of integer labels spanning at most 256 values (SNP dosages, bit strings, coded alleles):
    ``(codes, labels)`` exactly as the per-locus ``np.unique`` loop gives them, or None for other labels."""
    obs = ~missing
    if raw.dtype.kind not in "iu" or not obs.any():
        return None
    lo, hi = int(raw[obs].min()), int(raw[obs].max())
    if hi - lo > 255:
        return None
    n, n_loci, ploidy = raw.shape
    v = np.where(obs, raw - lo, 0).astype(np.intp)
    present = np.zeros((n_loci, hi - lo + 1), dtype=bool)
    locus = np.broadcast_to(np.arange(n_loci)[None, :, None], raw.shape)
    present[locus[obs], v[obs]] = True
    rank = np.cumsum(present, axis=1) - 1  # code of each present value within its locus
    codes = np.where(obs, rank[locus, v], -1).astype(np.int32)
    values = np.arange(lo, hi + 1)
    labels = [values[row].tolist() for row in present]
    return codes, labels


def _from_labels(raw: np.ndarray, missing: np.ndarray, loci, individuals, populations, locations) -> Genotypes:
    n, n_loci, ploidy = raw.shape
    fast = _from_small_ints(raw, missing)
    if fast is not None:
        return Genotypes(fast[0], fast[1], list(loci), np.asarray(np.arange(n) if individuals is None else individuals),
                         populations, locations)
    codes = np.full(raw.shape, -1, dtype=np.int32)
    labels = []
    for i in range(n_loci):
        obs = ~missing[:, i, :]
        vals = raw[:, i, :][obs]
        if raw.dtype != object:
            uniq, inv = np.unique(vals, return_inverse=True)
            labels.append([v.item() for v in uniq])
            codes[:, i, :][obs] = inv.astype(np.int32)
        else:
            py = [v.item() if isinstance(v, np.generic) else v for v in vals]
            lab = _sort_labels(py)
            index = {v: k for k, v in enumerate(lab)}
            labels.append(lab)
            codes[:, i, :][obs] = np.array([index[v] for v in py], dtype=np.int32)
    if individuals is None:
        individuals = np.arange(n)
    return Genotypes(codes, labels, list(loci), np.asarray(individuals), populations, locations)


def _check_individual_rows(g: Genotypes) -> None:
    check_individuals_observed((g.alleles >= 0).any(axis=(1, 2)), g.individuals)


def check_individuals_observed(observed: np.ndarray, individuals) -> None:
    """Refuse individuals with every locus missing (``observed`` False), naming the first and counting them."""
    empty = np.flatnonzero(~np.asarray(observed))
    if len(empty):
        raise ValueError(f"individual {individuals[empty[0]]!r} (row {empty[0]}) has every locus missing"
                         f"{f' ({len(empty)} such individuals)' if len(empty) > 1 else ''}; it carries no "
                         "information about its population. Drop it before fitting.")


def as_genotypes(X, *, ploidy: int | None = None, loci=None, individuals=None, populations=None,
                 missing_code: int = -9, allow_empty_individuals: bool = False) -> Genotypes:
    """Convert any supported genotype input to :class:`Genotypes` (the caller's data are never modified).

    Parameters
    ----------
    X : Genotypes, StructureData, str/path, array-like (N, loci, ploidy), or 2-d dosage array / DataFrame
        See the module docstring. A 2-d input is read as dosages 0..ploidy (default ploidy 2); a SNP dosage
        ``d`` becomes ``d`` copies of allele 1 and ``ploidy-d`` copies of allele 0 (phase is irrelevant to the
        model, Santafé 2007, section 8.1).
    ploidy : int, optional
        Expected allele copies per locus. A 3-d input or file with a different ploidy is an error.
    loci, individuals, populations : sequence, optional
        Locus names, individual labels and population labels (override what the input carries).
    missing_code : int, default -9
        Integer that marks a missing allele (``-1``, None and NaN are always missing too).
    allow_empty_individuals : bool, default False
        By default an individual with every locus missing is an error.

    Returns
    -------
    Genotypes

    Examples
    --------
    >>> import numpy as np
    >>> g = as_genotypes(np.array([[0, 1, 2], [2, -9, 1]]))        # 2 diploid individuals x 3 SNPs
    >>> g.codes
    array([[ 0,  0,  1,  0,  1,  1],
           [ 1,  1, -1, -1,  1,  0]], dtype=int32)
    >>> g2 = as_genotypes(np.array([[[150, 152]], [[152, -9]]]))   # microsatellite repeat lengths
    >>> g2.allele_labels, g2.cards
    ([[150, 152]], array([2]))
    """
    if ploidy is not None and (not isinstance(ploidy, (int, np.integer)) or ploidy < 1):
        raise ValueError(f"ploidy == {ploidy!r}, must be an integer >= 1.")
    if isinstance(X, Genotypes):
        g = X
        if ploidy is not None and g.ploidy != ploidy:
            raise ValueError(f"ploidy mismatch: the genotypes have {g.ploidy} allele copies per locus, ploidy="
                             f"{ploidy} was requested. Pass ploidy={g.ploidy} or re-encode the data.")
    elif isinstance(X, (str, os.PathLike, StructureData)):
        s = X if isinstance(X, StructureData) else read_structure(X, ploidy=2 if ploidy is None else ploidy)
        if ploidy is not None and s.ploidy != ploidy:
            raise ValueError(f"ploidy mismatch: the STRUCTURE data have ploidy {s.ploidy}, ploidy={ploidy} was "
                             "requested.")
        g = _from_labels(s.alleles, s.missing, s.loci, s.individuals, s.populations, s.locations)
    else:
        frame_index = None
        if isinstance(X, pd.DataFrame):
            loci = list(X.columns) if loci is None else loci
            frame_index = X.index.to_numpy()
            arr = X.to_numpy()
        elif hasattr(X, "toarray") and hasattr(X, "nnz"):  # a scipy sparse matrix
            raise TypeError("sparse genotypes are not supported: pass a dense dosage matrix (X.toarray()) or a "
                            "DataFrame.")
        else:
            arr = np.asarray(X)
        if arr.ndim == 3:
            if ploidy is not None and arr.shape[2] != ploidy:
                raise ValueError(f"ploidy mismatch: the allele array has shape {arr.shape} (last axis = ploidy "
                                 f"{arr.shape[2]}) but ploidy={ploidy}. Pass ploidy={arr.shape[2]} or reshape the "
                                 "array to (individuals, loci, ploidy).")
            raw = arr.copy()
            if raw.dtype.kind == "f":
                miss = np.isnan(raw) | (raw == missing_code) | (raw == -1)
                if np.any(raw[~miss] != np.round(raw[~miss])):
                    bad = raw[~miss][raw[~miss] != np.round(raw[~miss])][0]
                    raise ValueError(f"allele array has non-integer value {bad}; alleles are integer or string "
                                     "labels.")
                raw = np.where(miss, 0, raw).astype(np.int64)
            elif raw.dtype.kind in "iu":
                miss = (raw == missing_code) | (raw == -1)
            else:
                raw = raw.astype(object)
                miss = np.vectorize(lambda v: _is_missing_cell(v, (missing_code, -1)), otypes=[bool])(raw)
            if raw.dtype.kind in "iu" and np.any(raw[~miss] < 0):
                d, i, _ = np.argwhere((raw < 0) & ~miss)[0]
                raise ValueError(f"allele code out of range: {raw[d, i].tolist()} at individual row {d}, locus {i}; "
                                 f"negative values other than the missing codes ({missing_code}, -1) are not "
                                 "alleles.")
            n_loci = arr.shape[1]
        elif arr.ndim == 2:
            p = 2 if ploidy is None else int(ploidy)
            if arr.shape[1] == 0:
                raise ValueError(f"Found array with 0 feature(s) (shape={arr.shape}) while a minimum of 1 is "
                                 "required: the genotypes have no locus (0 columns); give at least one locus.")

            def _where(d, i):  # the user's locus name and individual label of a cell, for messages
                lab = frame_index[d] if frame_index is not None else d
                lab = lab.item() if isinstance(lab, np.generic) else lab
                return (loci[i] if loci is not None and i < len(loci) else f"L{i}"), lab

            if arr.dtype.kind in "iub" and p <= 127:  # integers: checked and narrowed without a float copy
                dose = _int_dosages(arr, p, missing_code, _where)
                names = loci if loci is not None else [f"L{i}" for i in range(arr.shape[1])]
                g = _from_dosages(dose, dose >= 0, p, names, frame_index if individuals is None else individuals)
                return _finish(g, X, ploidy, loci, individuals, populations, allow_empty_individuals)
            if arr.dtype.kind in "iufb":  # numbers already: no per-cell conversion
                num = arr.astype(np.float64)
                bad_type = np.zeros(arr.shape, dtype=bool)
            else:
                num = pd.DataFrame(arr).apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
                bad_type = np.isnan(num) & ~pd.isna(pd.DataFrame(arr)).to_numpy()
            if bad_type.any():
                d, i = np.argwhere(bad_type)[0]
                locus, lab = _where(d, i)
                raise TypeError(f"locus {locus!r} holds {arr[d, i]!r} at individual {lab!r}; dosages are numbers "
                                f"0..{p} (NaN, {missing_code} or -1 = missing). Correct the value or drop the locus.")
            miss_g = np.isnan(num) | (num == missing_code) | (num == -1)
            ok = ~miss_g
            bad = ok & ((num < 0) | (num > p) | (num != np.round(num)))
            _refuse_out_of_range(bad, num, p, _where)
            dose = np.where(ok, num, 0).astype(np.int8 if p <= 127 else np.int64)
            n_loci = arr.shape[1]
            names = loci if loci is not None else [f"L{i}" for i in range(n_loci)]
            g = _from_dosages(dose, ok, p, names, frame_index if individuals is None else individuals)
            return _finish(g, X, ploidy, loci, individuals, populations, allow_empty_individuals)
        else:
            raise ValueError(f"genotype input must be a 3-d allele array (individuals, loci, ploidy), a 2-d dosage "
                             f"matrix, a DataFrame or a STRUCTURE file path; got an array with shape {arr.shape}.")
        names = loci if loci is not None else [f"L{i}" for i in range(n_loci)]
        g = _from_labels(raw, miss, names, frame_index if individuals is None else individuals, None, None)
    return _finish(g, X, ploidy, loci, individuals, populations, allow_empty_individuals)


def _refuse_out_of_range(bad: np.ndarray, values: np.ndarray, p: int, where) -> None:
    """Raise for the first dosage outside 0..p (``bad``), naming the locus and the individual (``where(d, i)``)."""
    if bad.any():
        d, i = np.argwhere(bad)[0]
        locus, lab = where(d, i)
        raise ValueError(f"allele code out of range: dosage {values[d, i]} for individual {lab!r}, locus {locus!r}; a "
                         f"dosage counts alternative alleles, 0..{p} for ploidy {p}. Pass the right ploidy, or a 3-d "
                         "(individuals, loci, ploidy) array for multi-allelic loci.")


def _int_dosages(arr: np.ndarray, p: int, missing_code: int, where) -> np.ndarray:
    """int8 dosages (``-1`` = missing) of an integer or boolean 0..p matrix, checked cell by cell like the float
    path (``missing_code`` and -1 are missing; anything else outside 0..p is an error naming the locus and the
    individual, ``where(d, i)``). One int8 copy and two boolean masks; the caller's array is not modified."""
    if arr.dtype.kind == "i":
        miss = (arr == missing_code) | (arr == -1)
        bad = ~miss & ((arr < 0) | (arr > p))
    else:  # unsigned or boolean: nothing is missing, nothing is negative
        miss = None
        bad = arr > p
    _refuse_out_of_range(bad, arr, p, where)
    dose = arr.astype(np.int8)  # a copy, also for int8 input
    if miss is not None:
        dose[miss] = -1
    return dose


def dosage_matrix(X, *, ploidy: int, missing_code: int = -9):
    """``(dosages, loci, individuals)`` of an integer (or boolean) 2-d dosage array or DataFrame, read straight to
    int8 (``-1`` = missing) with ``as_genotypes``'s checks and messages; None for any other input (which then goes
    through ``as_genotypes``). The fast path of ``PopulationEMA.fit`` on SNP dosages: no allele-code expansion
    (``ploidy`` int32 codes per genotype) and no float copy."""
    if ploidy > 127 or isinstance(X, (Genotypes, StructureData, str, os.PathLike)):
        return None
    if isinstance(X, pd.DataFrame):
        if not all(isinstance(t, np.dtype) and t.kind in "iub" for t in X.dtypes):
            return None
        arr, loci, index = X.to_numpy(), list(X.columns), X.index.to_numpy()
    elif isinstance(X, np.ndarray) and X.dtype.kind in "iub":
        arr, loci, index = X, None, None
    else:
        return None
    if arr.ndim != 2 or arr.shape[1] == 0 or arr.shape[0] == 0:
        return None

    def where(d, i):
        lab = index[d] if index is not None else d
        return (loci[i] if loci is not None else f"L{i}"), (lab.item() if isinstance(lab, np.generic) else lab)

    dose = _int_dosages(arr, int(ploidy), missing_code, where)
    names = loci if loci is not None else [f"L{i}" for i in range(arr.shape[1])]
    return dose, names, np.asarray(np.arange(arr.shape[0]) if index is None else index)


def _from_dosages(dose: np.ndarray, ok: np.ndarray, p: int, loci, individuals) -> Genotypes:
    """Genotypes of a 0..p dosage matrix (``ok`` False = missing genotype): copy ``c`` carries allele 1 when
    ``c < dosage``; labels are the alleles observed at the locus (``[0, 1]``, ``[0]`` or ``[1]``), so allele 1 has
    code 1 unless allele 0 is never observed. The same codes as the per-locus encoding, without it."""
    has1 = np.any(ok & (dose > 0), axis=0)
    has0 = np.any(ok & (dose < p), axis=0)
    code1 = has0.astype(np.int32)  # allele 1's code: 1 after allele 0, 0 when alone
    copies = np.arange(p)[None, None, :] < dose[:, :, None]
    codes = np.where(copies, code1[None, :, None], 0).astype(np.int32)
    codes[~ok] = -1
    labels = [[0, 1] if a and b else ([0] if a else ([1] if b else [])) for a, b in zip(has0.tolist(), has1.tolist())]
    n = dose.shape[0]
    return Genotypes(codes, labels, list(loci), np.asarray(np.arange(n) if individuals is None else individuals))


def _finish(g, X, ploidy, loci, individuals, populations, allow_empty_individuals) -> Genotypes:
    if loci is not None and not isinstance(X, (np.ndarray, pd.DataFrame, list, tuple)):
        g = Genotypes(g.alleles, g.allele_labels, list(loci), g.individuals, g.populations, g.locations)
    if individuals is not None:
        g = Genotypes(g.alleles, g.allele_labels, g.loci, np.asarray(individuals), g.populations, g.locations)
    if populations is not None:
        if len(populations) != g.n_individuals:
            raise ValueError(f"populations has {len(populations)} labels, expected {g.n_individuals}.")
        g = Genotypes(g.alleles, g.allele_labels, g.loci, g.individuals, np.asarray(populations), g.locations)
    if len(g.loci) != g.n_loci or len(g.individuals) != g.n_individuals:
        raise ValueError(f"got {len(g.loci)} locus names for {g.n_loci} loci and {len(g.individuals)} individual "
                         f"labels for {g.n_individuals} individuals.")
    if not allow_empty_individuals:
        _check_individual_rows(g)
    return g
