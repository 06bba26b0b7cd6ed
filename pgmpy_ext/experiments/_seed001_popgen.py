"""Shared pieces of the chapter-8 reproductions (seed 001, population structure): the stand-in data sets, the
quoted thesis numbers and small helpers."""

from __future__ import annotations

import numpy as np

from pgmpy_ext.datasets import make_balding_nichols
from pgmpy_ext.evaluation import clustering_accuracy

__all__ = ["HGDP_REGIONS", "HGDP_SIZES", "TABLE_81", "TABLE_82", "TABLE_83", "hgdp_standin", "matched_accuracy",
           "snp_standin"]

#: Table 8.1: % correctly assigned (mean, sd over 10 runs): STRUCTURE, EMA; ds1..ds19 then dsSNPs.
TABLE_81 = {
    "ds1": ((87.28, 0.55), (95.07, 0.47)), "ds2": ((88.27, 1.35), (93.24, 0.36)),
    "ds3": ((88.48, 0.48), (93.38, 1.49)), "ds4": ((91.27, 0.34), (95.77, 0.00)),
    "ds5": ((83.75, 7.67), (93.94, 0.36)), "ds6": ((84.53, 0.51), (86.13, 0.48)),
    "ds7": ((92.20, 0.25), (96.48, 0.00)), "ds8": ((74.79, 2.66), (82.75, 2.11)),
    "ds9": ((81.86, 0.62), (86.06, 1.78)), "ds10": ((85.28, 0.74), (89.08, 1.11)),
    "ds11": ((87.25, 0.38), (90.14, 0.00)), "ds12": ((89.59, 0.35), (91.55, 0.00)),
    "ds13": ((90.72, 0.38), (94.37, 0.00)), "ds14": ((89.41, 0.26), (95.99, 0.48)),
    "ds15": ((86.08, 0.30), (90.07, 0.52)), "ds16": ((84.96, 0.84), (93.45, 0.48)),
    "ds17": ((88.34, 0.17), (93.52, 0.30)), "ds18": ((81.16, 0.53), (86.55, 2.92)),
    "ds19": ((82.65, 0.86), (86.62, 0.00)), "dsSNPs": ((96.78, 0.09), (100.0, 0.00)),
}
#: Table 8.2: F_ST of 10 multi-start EMA runs on HGDP (rC = 2, 3, 4), thesis formula as printed.
TABLE_82 = {2: [0.027144, 0.027144, 0.027144, 0.027144, 0.027151, 0.027144, 0.027144, 0.027144, 0.027144, 0.027152],
            3: [0.0319383, 0.0319383, 0.0319383, 0.0319383, 0.031568, 0.0319383, 0.0319383, 0.0354102, 0.0319383,
                0.0319383],
            4: [0.031003, 0.029375, 0.034639, 0.029892, 0.031003, 0.031003, 0.031003, 0.031003, 0.031003, 0.039051]}
#: Table 8.3: F_ST of 10 STRUCTURE runs (quoted; STRUCTURE is never run here).
TABLE_83 = {2: [0.00069648, 0.00069517, 0.00069517, 0.00069517, 0.00069517, 0.00069517, 0.00069517, 0.00067972,
                0.00069517, 0.00069517],
            3: [0.0031515, 0.0031535, 0.0039283, 0.0031127, 0.0031535, 0.0031668, 0.0031384, 0.0031535, 0.0031535,
                0.0031535],
            4: [0.0057969, 0.0057959, 0.0057969, 0.0057969, 0.0057969, 0.0057969, 0.0057969, 0.0057969, 0.0058299,
                0.0057969]}

#: The 7 HGDP-CEPH regions of Rosenberg et al. (2005) and stand-in sizes summing to 1,048 (approximate shares).
HGDP_REGIONS = ["Africa", "Middle East", "Europe", "Central/South Asia", "East Asia", "Oceania", "America"]
HGDP_SIZES = [127, 178, 161, 210, 231, 39, 102]


def matched_accuracy(y, labels) -> float:
    """Share of individuals whose cluster is matched to their population (Hungarian one-to-one matching)."""
    return float(clustering_accuracy(np.asarray(y), np.asarray(labels), mapping="one-to-one"))


def snp_standin(random_state=0, *, fst: float = 0.10):
    """The Table 8.1 stand-in: 71 diploid individuals (24/23/24) from three Balding-Nichols populations split into
    142 haploid sequences x 1,520 common SNPs (ancestral frequency in [0.05, 0.95])."""
    a, pop = make_balding_nichols(n_individuals=[24, 23, 24], n_populations=3, n_loci=1520, fst=fst, ploidy=2,
                                  min_ancestral_freq=0.05, random_state=random_state)
    seqs = a.transpose(0, 2, 1).reshape(-1, a.shape[1])[:, :, None]  # each diploid -> 2 haploid sequences
    return seqs, np.repeat(pop, 2)


def hgdp_standin(random_state=0, *, fst: float = 0.04, missing_rate: float = 0.03):
    """The HGDP-sized stand-in: 1,048 diploid individuals from 7 Balding-Nichols regions (sizes
    :data:`HGDP_SIZES`), 783 multi-allelic "microsatellites" (3-24 alleles, uniform) then 210 biallelic "indels",
    ``missing_rate`` of the genotypes missing. Returns (alleles, regions, microsatellite mask)."""
    rng = np.random.default_rng(random_state)
    cards = np.concatenate([rng.integers(3, 25, 783), np.full(210, 2)])
    a, pop = make_balding_nichols(n_individuals=HGDP_SIZES, n_populations=7, n_loci=993, fst=fst,
                                  n_alleles=cards, missing_rate=missing_rate, random_state=rng)
    return a, np.asarray(HGDP_REGIONS, dtype=object)[pop], np.arange(993) < 783
