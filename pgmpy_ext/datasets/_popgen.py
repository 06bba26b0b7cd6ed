"""Genotype generators for the population-structure experiments (seed 001 chapter 8, spec section 9.5).

Both return a raw allele array ``(individuals, loci, ploidy)`` of integer allele labels with ``-9`` for a missing
copy (what a STRUCTURE file holds) and the true population of every individual; ``pgmpy_ext.popgen.as_genotypes``
encodes them.
"""

from __future__ import annotations

import numpy as np

from pgmpy_ext.utils import check_generator

__all__ = ["make_balding_nichols", "make_toy_bitstrings"]


def make_toy_bitstrings(*, n_per_population: int = 20, n_bits: int = 50, mutation_rate: float = 0.05,
                        return_informative: bool = False, random_state=None):
    """The toy haploid bit-string populations of seed 001 section 8.3 (after O'Rourke, Chechik & Eskin 2005).

    Three ancestral ``n_bits``-bit strings: ``A`` is uniform random, ``B`` flips 2 positions of ``A``, ``C`` flips
    3 *other* positions of ``A`` (so the pairwise distances are 2, 3 and 5). Each population is its ancestor plus
    ``n_per_population - 1`` clones in which every bit flips independently with probability ``mutation_rate``
    (spec 9.5(a); 60 individuals, 3 populations, haploid, 2 alleles per locus).

    Parameters
    ----------
    n_per_population : int, default 20
    n_bits : int, default 50
    mutation_rate : float, default 0.05
    return_informative : bool, default False
        Also return ``{"AB": positions flipped in B, "AC": positions flipped in C}``.
    random_state : None, int or numpy Generator

    Returns
    -------
    alleles : ndarray of int64 (3*n_per_population, n_bits, 1)
        Bits 0/1 (ploidy 1, no missing copy).
    populations : ndarray of object (3*n_per_population,)
        ``"A"``, ``"B"`` or ``"C"``; each population starts with its ancestor.
    informative : dict, only when ``return_informative``

    Examples
    --------
    >>> a, pop, info = make_toy_bitstrings(return_informative=True, random_state=0)
    >>> a.shape, sorted(set(pop)), len(info["AB"]), len(info["AC"])
    ((60, 50, 1), ['A', 'B', 'C'], 2, 3)
    """
    if n_bits < 5:
        raise ValueError(f"n_bits == {n_bits}, must be >= 5 (B and C flip 5 distinct positions of A).")
    if n_per_population < 1:
        raise ValueError(f"n_per_population == {n_per_population}, must be >= 1.")
    if not 0.0 <= mutation_rate <= 1.0:
        raise ValueError(f"mutation_rate == {mutation_rate}, must be in [0, 1].")
    rng = check_generator(random_state)
    a = rng.integers(0, 2, n_bits)
    flips = rng.choice(n_bits, 5, replace=False)
    ab, ac = np.sort(flips[:2]), np.sort(flips[2:])
    b, c = a.copy(), a.copy()
    b[ab] ^= 1
    c[ac] ^= 1
    rows, pops = [], []
    for name, anc in (("A", a), ("B", b), ("C", c)):
        rows.append(anc)
        for _ in range(n_per_population - 1):
            rows.append(anc ^ (rng.random(n_bits) < mutation_rate).astype(anc.dtype))
        pops += [name] * n_per_population
    alleles = np.asarray(rows, dtype=np.int64)[:, :, None]
    populations = np.asarray(pops, dtype=object)
    if return_informative:
        return alleles, populations, {"AB": ab, "AC": ac}
    return alleles, populations


def make_balding_nichols(*, n_individuals=300, n_populations: int = 4, n_loci: int = 1000, fst: float = 0.05,
                         ploidy: int = 2, n_alleles=2, missing_rate: float = 0.0, missing_unit: str = "genotype",
                         min_ancestral_freq: float = 0.0, random_state=None):
    r"""Genotypes from the Balding-Nichols (F-model) of population divergence (spec 9.5(c) stand-ins).

    Per locus, an ancestral allele-frequency vector :math:`p` is drawn from Dirichlet(1) over its alleles
    (Beta(1, 1) for a SNP); each population's frequencies are

    .. math::

        p_j \sim \mathrm{Dirichlet}\big(p\,(1 - F)/F\big),

    so that :math:`F` is the expected :math:`F_{ST}` between a population and the ancestor. Each individual of
    population ``j`` draws its ``ploidy`` allele copies independently from :math:`p_j` (Hardy-Weinberg and
    linkage equilibrium, the model that ``PopulationEMA`` fits).

    Parameters
    ----------
    n_individuals : int or sequence of int, default 300
        Total (split as evenly as possible) or one size per population.
    n_populations : int, default 4
    n_loci : int, default 1000
    fst : float in (0, 1), default 0.05
    ploidy : int, default 2
    n_alleles : int or sequence of int, default 2
        Alleles per locus; a sequence of ``n_loci`` counts makes multi-allelic (microsatellite-like) loci.
    missing_rate : float in [0, 1), default 0
        Probability that a genotype (``missing_unit="genotype"``, every copy of one locus of one individual) or an
        allele copy (``"allele"``) is missing.
    missing_unit : {"genotype", "allele"}, default "genotype"
    min_ancestral_freq : float, default 0
        Redraw ancestral SNP frequencies below this value or above ``1 - min_ancestral_freq`` (a common-SNP
        ascertainment; biallelic loci only).
    random_state : None, int or numpy Generator

    Returns
    -------
    alleles : ndarray of int64 (N, n_loci, ploidy)
        Allele labels ``0..n_alleles-1``, ``-9`` = missing.
    populations : ndarray of int64 (N,)
        True population ``0..n_populations-1`` (individuals sorted by population).

    Examples
    --------
    >>> a, pop = make_balding_nichols(n_individuals=40, n_loci=30, fst=0.1, missing_rate=0.05, random_state=1)
    >>> a.shape, int(pop.max()), bool((a == -9).any())
    ((40, 30, 2), 3, True)
    """
    if not 0.0 < fst < 1.0:
        raise ValueError(f"fst == {fst}, must be in (0, 1).")
    if not 0.0 <= missing_rate < 1.0:
        raise ValueError(f"missing_rate == {missing_rate}, must be in [0, 1).")
    if missing_unit not in ("genotype", "allele"):
        raise ValueError(f"missing_unit == {missing_unit!r}, must be one of ('genotype', 'allele').")
    if ploidy < 1 or n_populations < 1 or n_loci < 1:
        raise ValueError("ploidy, n_populations and n_loci must all be >= 1.")
    rng = check_generator(random_state)
    if np.ndim(n_individuals) == 0:
        total = int(n_individuals)
        sizes = np.full(n_populations, total // n_populations)
        sizes[: total % n_populations] += 1
    else:
        sizes = np.asarray(n_individuals, dtype=int)
        if sizes.shape != (n_populations,):
            raise ValueError(f"n_individuals has {sizes.size} sizes, expected one per population ({n_populations}).")
    cards = np.broadcast_to(np.asarray(n_alleles, dtype=int), (n_loci,))
    if np.any(cards < 1):
        raise ValueError("n_alleles must be >= 1 at every locus.")
    populations = np.repeat(np.arange(n_populations), sizes)
    n = int(sizes.sum())
    alleles = np.empty((n, n_loci, ploidy), dtype=np.int64)
    scale = (1.0 - fst) / fst
    for i in range(n_loci):
        r = int(cards[i])
        if r == 1:
            alleles[:, i, :] = 0
            continue
        anc = rng.dirichlet(np.ones(r))
        while r == 2 and min_ancestral_freq > 0 and not min_ancestral_freq <= anc[0] <= 1 - min_ancestral_freq:
            anc = rng.dirichlet(np.ones(r))
        alpha = np.maximum(anc * scale, 1e-12)
        freqs = np.array([rng.dirichlet(alpha) for _ in range(n_populations)])
        cum = np.cumsum(freqs, axis=1)[populations]  # (n, r)
        u = rng.random((n, ploidy))
        alleles[:, i, :] = np.minimum((u[:, :, None] > cum[:, None, :]).sum(axis=2), r - 1)
    if missing_rate > 0:
        if missing_unit == "genotype":
            miss = np.repeat((rng.random((n, n_loci)) < missing_rate)[:, :, None], ploidy, axis=2)
        else:
            miss = rng.random((n, n_loci, ploidy)) < missing_rate
        alleles[miss] = -9
    return alleles, populations
