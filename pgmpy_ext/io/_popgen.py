"""STRUCTURE-format genotype files (Pritchard, Stephens & Donnelly 2000): reader and writer.

A STRUCTURE file is whitespace-separated text. An optional first line names the loci. Every other line is one
row of an individual: an optional label, an optional population column (POPDATA), an optional location column
(LOCDATA), then the alleles. A diploid individual takes either **two rows** (the STRUCTURE default, one allele copy
per row, same label) or **one row** with two columns per locus (ONEROWPERIND). Missing alleles are ``-9``.

This module knows nothing about models: it returns the raw allele labels (:class:`StructureData`), and
``pgmpy_ext.popgen.as_genotypes`` turns them into int32 codes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

__all__ = ["StructureData", "read_structure", "write_structure"]


@dataclass
class StructureData:
    """Raw content of a STRUCTURE file.

    Attributes
    ----------
    alleles : ndarray (n_individuals, n_loci, ploidy)
        Allele labels as read (int64 when every token is an integer, else object of str); missing cells hold the
        missing code and are flagged in ``missing``.
    missing : ndarray of bool, same shape
        True where the allele copy is missing.
    individuals : ndarray (n_individuals,)
        Individual labels (row numbers ``0..N-1`` when the file has no label column).
    populations, locations : ndarray (n_individuals,) or None
        The POPDATA and LOCDATA columns when present.
    loci : list of str
        Locus names (from the header line, else ``"L0", "L1", ...``).
    ploidy : int
    """

    alleles: np.ndarray
    missing: np.ndarray
    individuals: np.ndarray
    populations: np.ndarray | None = None
    locations: np.ndarray | None = None
    loci: list = field(default_factory=list)
    ploidy: int = 2


def _parse(token: str):
    try:
        return int(token)
    except ValueError:
        try:
            value = float(token)
        except ValueError:
            return token
        return int(value) if value.is_integer() else value


def _column(values: list):
    parsed = [_parse(v) for v in values]
    if all(isinstance(v, int) for v in parsed):
        return np.asarray(parsed, dtype=np.int64)
    return np.asarray([str(v) for v in values], dtype=object)


def read_structure(path, *, ploidy: int = 2, label: bool = True, pop_data: bool = True, loc_data: bool = False,
                   one_row_per_individual: bool | None = None, header: bool | None = None,
                   missing: int = -9) -> StructureData:
    """Read a STRUCTURE-format genotype file.

    Parameters
    ----------
    path : str or path-like
    ploidy : int, default 2
        Allele copies per locus (1 for haploid data).
    label, pop_data, loc_data : bool, default True, True, False
        Whether the file has the individual-label, population (POPDATA) and location (LOCDATA) columns, in this
        order before the alleles (STRUCTURE's LABEL, POPDATA and LOCDATA settings).
    one_row_per_individual : bool or None, default None
        ``True``: one row per individual with ``ploidy`` columns per locus. ``False``: ``ploidy`` rows per
        individual. ``None``: ``ploidy`` rows when every group of ``ploidy`` consecutive rows shares a label,
        else one row.
    header : bool or None, default None
        Whether the first line names the loci; ``None`` detects it (a first line with fewer fields than the
        data lines).
    missing : int, default -9
        The missing-allele code.

    Returns
    -------
    StructureData

    Examples
    --------
    >>> import tempfile, os
    >>> text = "L1 L2\\nind1 1 10 -9\\nind1 1 12 -9\\nind2 2 12 3\\nind2 2 12 4\\n"
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "toy.str")
    ...     _ = open(p, "w").write(text)
    ...     s = read_structure(p)
    >>> s.alleles.shape, s.loci, s.populations.tolist()
    ((2, 2, 2), ['L1', 'L2'], [1, 2])
    >>> bool(s.missing[0, 1].all())
    True
    """
    if int(ploidy) < 1:
        raise ValueError(f"ploidy == {ploidy}, must be >= 1.")
    ploidy = int(ploidy)
    with open(os.fspath(path)) as fh:
        lines = [ln.split() for ln in fh if ln.strip()]
    if not lines:
        raise ValueError(f"STRUCTURE file {os.fspath(path)!r} is empty.")
    n_lead = int(label) + int(pop_data) + int(loc_data)
    if header is None:
        header = len(lines) > 1 and len(lines[0]) < len(lines[1])
    names = lines[0] if header else None
    rows = lines[1:] if header else lines
    if not rows:
        raise ValueError(f"STRUCTURE file {os.fspath(path)!r} has a header line but no genotype rows.")
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"STRUCTURE file {os.fspath(path)!r}: data line {r + 1 + bool(header)} has {len(row)} "
                             f"fields, the first data line has {width}; every line needs the same columns.")
    if width <= n_lead:
        raise ValueError(f"STRUCTURE file lines have {width} fields but {n_lead} leading columns were declared "
                         "(label/pop_data/loc_data); no alleles are left.")
    labels = [row[0] for row in rows] if label else [str(r) for r in range(len(rows))]
    if one_row_per_individual is None:
        one_row_per_individual = not (ploidy > 1 and label and len(rows) % ploidy == 0
                                      and all(len(set(labels[s:s + ploidy])) == 1
                                              for s in range(0, len(rows), ploidy)))
    n_values = width - n_lead
    if one_row_per_individual:
        if n_values % ploidy:
            raise ValueError(f"one row per individual with ploidy {ploidy} needs a multiple of {ploidy} allele "
                             f"columns; the file has {n_values}. Check ploidy and the leading columns.")
        n_loci, starts = n_values // ploidy, list(range(len(rows)))
    else:
        if len(rows) % ploidy:
            raise ValueError(f"{len(rows)} genotype rows is not a multiple of ploidy {ploidy} (ploidy rows per "
                             "individual); pass one_row_per_individual=True or the right ploidy.")
        n_loci, starts = n_values, list(range(0, len(rows), ploidy))
        for s in starts:
            if label and len(set(labels[s:s + ploidy])) != 1:
                raise ValueError(f"rows {s + 1}..{s + ploidy} should belong to one individual but have labels "
                                 f"{labels[s:s + ploidy]}; pass one_row_per_individual=True if the file has one "
                                 "row per individual.")
    if names is not None and len(names) != n_loci:
        raise ValueError(f"the header line names {len(names)} loci but the data have {n_loci}; check "
                         "label/pop_data/loc_data and ploidy.")
    tokens = []
    for s in starts:
        if one_row_per_individual:
            vals = rows[s][n_lead:]
            tokens.append([[vals[i * ploidy + g] for g in range(ploidy)] for i in range(n_loci)])
        else:
            tokens.append([[rows[s + g][n_lead + i] for g in range(ploidy)] for i in range(n_loci)])
    flat = [t for ind in tokens for loc in ind for t in loc]
    miss = np.array([_parse(t) == missing for t in flat], dtype=bool).reshape(len(starts), n_loci, ploidy)
    alleles = _column(flat).reshape(len(starts), n_loci, ploidy)
    col = 1 if label else 0
    pops = _column([rows[s][col] for s in starts]) if pop_data else None
    locs = _column([rows[s][col + int(pop_data)] for s in starts]) if loc_data else None
    inds = np.asarray([labels[s] for s in starts], dtype=object)
    loci = list(names) if names is not None else [f"L{i}" for i in range(n_loci)]
    return StructureData(alleles=alleles, missing=miss, individuals=inds, populations=pops, locations=locs,
                         loci=loci, ploidy=ploidy)


def write_structure(path, alleles, *, missing=None, individuals=None, populations=None, locations=None,
                    loci=None, one_row_per_individual: bool = False, header: bool = True,
                    missing_code: int = -9) -> None:
    """Write genotypes as a STRUCTURE-format file (labels, optional POPDATA/LOCDATA, ``-9`` for missing).

    Parameters
    ----------
    path : str or path-like
    alleles : array-like (n_individuals, n_loci, ploidy)
        Allele labels, written with ``str``. STRUCTURE itself reads integer alleles only; other labels round-trip
        through :func:`read_structure` but not through STRUCTURE.
    missing : array-like of bool, same shape, optional
        True where a copy is missing (written as ``missing_code``). Default: cells equal to ``missing_code``.
    individuals, populations, locations : array-like (n_individuals,), optional
        Label column (default ``0..N-1``), POPDATA and LOCDATA columns (omitted when None).
    loci : list of str, optional
        Locus names for the header line (default ``L0, L1, ...``); each must be one token without whitespace
        (a ValueError says which is not), since the header is split on whitespace when read back.
    one_row_per_individual : bool, default False
        Write ``ploidy`` rows per individual (STRUCTURE's default) or one row with ``ploidy`` columns per locus.
    header : bool, default True
        Write the locus-name line.
    missing_code : int, default -9

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> a = np.array([[[1, 2], [3, -9]]])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_structure(os.path.join(d, "x.str"), a, individuals=["i1"], populations=[1])
    ...     print(open(os.path.join(d, "x.str")).read().strip())
    L0 L1
    i1 1 1 3
    i1 1 2 -9
    """
    alleles = np.asarray(alleles)
    if alleles.ndim != 3:
        raise ValueError(f"alleles must be (n_individuals, n_loci, ploidy), got shape {alleles.shape}.")
    n, n_loci, ploidy = alleles.shape
    miss = (alleles == missing_code) if missing is None else np.asarray(missing, dtype=bool)
    if miss.shape != alleles.shape:
        raise ValueError(f"missing has shape {miss.shape}, expected {alleles.shape}.")
    inds = list(range(n)) if individuals is None else list(individuals)
    loci = [f"L{i}" for i in range(n_loci)] if loci is None else [str(x) for x in loci]
    for name, col in (("individuals", inds), ("populations", populations), ("locations", locations)):
        if col is not None and len(col) != n:
            raise ValueError(f"{name} has {len(col)} entries, expected one per individual ({n}).")
        if col is not None and any(" " in str(v) or "\t" in str(v) for v in col):
            raise ValueError(f"{name} contains a label with whitespace; STRUCTURE files are whitespace-separated.")
    if len(loci) != n_loci:
        raise ValueError(f"loci has {len(loci)} names, expected {n_loci}.")
    if header:  # the header line is split on whitespace when read back: a name must be one non-empty token
        bad = next((i for i, x in enumerate(loci) if not x or len(x.split()) != 1 or x.split()[0] != x), None)
        if bad is not None:
            raise ValueError(f"locus name {loci[bad]!r} (locus {bad}) is empty or contains whitespace; a STRUCTURE "
                             "header is whitespace-separated, so read_structure could not read it back. Rename the "
                             "loci (e.g. loci=[str(x).replace(' ', '_') for x in loci]) or pass header=False.")
    cells = np.where(miss, str(missing_code), alleles.astype(str))
    lines = [" ".join(loci)] if header else []
    for d in range(n):
        lead = [str(inds[d])]
        if populations is not None:
            lead.append(str(populations[d]))
        if locations is not None:
            lead.append(str(locations[d]))
        if one_row_per_individual:
            lines.append(" ".join(lead + list(cells[d].reshape(-1))))
        else:
            lines.extend(" ".join(lead + list(cells[d, :, g])) for g in range(ploidy))
    with open(os.fspath(path), "w") as fh:
        fh.write("\n".join(lines) + "\n")
