"""Genotype generators for the population-structure experiments (seed 001 chapter 8, spec section 9.5; issue 28).

:func:`make_toy_bitstrings` and :func:`make_balding_nichols` return a raw allele array ``(individuals, loci,
ploidy)`` of integer allele labels with ``-9`` for a missing copy (what a STRUCTURE file holds) and the true
population of every individual; ``pgmpy_ext.popgen.as_genotypes`` encodes them.

:func:`simulate_demes` and :func:`simulate_stdpopsim` are coalescent simulations (msprime; stdpopsim's catalogue of
published demographic models), with linkage within chromosomes, drift and mutation: SNP dosages ``(individuals,
SNPs)`` int8 and the sampled population of every individual. They need the optional extra ``pgmpy-ext[popgen-sim]``
(msprime, stdpopsim) and run offline (stdpopsim on a generic contig with a flat recombination map, so no genetic map
is downloaded).
"""

from __future__ import annotations

import numpy as np

from pgmpy_ext.utils import check_generator

__all__ = ["make_balding_nichols", "make_toy_bitstrings", "simulate_demes", "simulate_stdpopsim"]


def make_toy_bitstrings(*, n_per_population: int = 20, n_bits: int = 50, mutation_rate: float = 0.05,
                        return_informative: bool = False, random_state=None):
    """The toy haploid bit-string populations of Santafé (2007), section 8.3 (after O'Rourke, Chechik &
    Eskin 2005).

    Three ancestral ``n_bits``-bit strings: ``A`` is uniform random, ``B`` flips 2 positions of ``A``, ``C`` flips
    3 *other* positions of ``A`` (so the pairwise distances are 2, 3 and 5). Each population is its ancestor plus
    ``n_per_population - 1`` clones in which every bit flips independently with probability ``mutation_rate``
    (the thesis's toy data: 60 individuals, 3 populations, haploid, 2 alleles per locus).

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
    r"""Genotypes from the Balding-Nichols (F-model) of population divergence (stand-ins for the thesis's
    SNP data, Santafé 2007, chapter 8).

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


# ------------------------------------------------------------------------------------------------ coalescent
def _require(name: str):
    try:
        return __import__(name)
    except ImportError:
        raise ImportError(f"this simulation needs {name}: pip install 'pgmpy-ext[popgen-sim]' (msprime and "
                          "stdpopsim).") from None


def _population_name(ts, pid: int) -> str:
    meta = ts.population(pid).metadata
    return str(meta.get("name", pid)) if isinstance(meta, dict) else str(pid)


def _dosages_of(ts, n_snps: int | None, min_maf: float, rng: np.random.Generator):
    """Diploid dosages (individuals, SNPs) of a tree sequence's biallelic sites with minor allele frequency >=
    ``min_maf``, ``n_snps`` of them chosen at random (kept in genome order), and each individual's population."""
    H = ts.genotype_matrix()  # (sites, sample nodes), 0/1 under the binary mutation model
    node_of = {int(u): c for c, u in enumerate(ts.samples())}
    inds = [ind for ind in ts.individuals() if len(ind.nodes) and int(ind.nodes[0]) in node_of]
    cols = np.array([[node_of[int(u)] for u in ind.nodes] for ind in inds])
    dos = H[:, cols].sum(axis=2).T  # (individuals, sites)
    freq = dos.mean(axis=0) / cols.shape[1]
    biallelic = H.max(axis=1) <= 1 if H.size else np.zeros(0, dtype=bool)  # drop sites with a third allele
    keep = np.flatnonzero(biallelic & (np.minimum(freq, 1 - freq) >= min_maf))
    if n_snps is not None:
        if len(keep) < n_snps:
            raise ValueError(f"the simulation has {len(keep)} SNPs with minor allele frequency >= {min_maf}, fewer "
                             f"than n_snps={n_snps}; simulate a longer genome (n_chromosomes, chromosome_length).")
        keep = np.sort(rng.choice(keep, n_snps, replace=False))
    pops = np.array([_population_name(ts, ts.node(int(ind.nodes[0])).population) for ind in inds], dtype=object)
    return np.ascontiguousarray(dos[:, keep], dtype=np.int8), pops


def simulate_demes(model: str = "island", *, n_populations: int = 4, n_per_population=75, n_snps: int | None = 10_000,
                   fst: float = 0.02, population_size: int = 1_000, n_chromosomes: int = 10,
                   chromosome_length: float = 5e6, recombination_rate: float = 1e-8, mutation_rate: float = 1e-8,
                   min_maf: float = 0.05, admixed: int = 0, admixture_time: float = 10.0, random_state=None):
    r"""SNP dosages of demes under an island or stepping-stone model, simulated with msprime.

    ``n_populations`` demes of ``population_size`` diploids exchange migrants at the rate that makes Wright's
    equilibrium :math:`F_{ST} = 1 / (1 + 4 N m\,(d / (d - 1))^2)` equal ``fst`` for ``d`` demes (an island model:
    every pair of demes; a stepping-stone model: neighbours on a line, with that same ``m``, so its overall F_ST is
    higher and neighbours are closer than distant demes). ``n_chromosomes`` independent chromosomes of
    ``chromosome_length`` bp carry linked SNPs (binary mutations); ``n_snps`` of those with minor allele frequency
    at least ``min_maf`` are kept, at random, in genome order. ``admixed > 0`` adds that many individuals of an
    extra population formed ``admixture_time`` generations ago from demes 0 and 1 in equal parts (their expected
    ancestry is one half from each).

    Parameters
    ----------
    model : {"island", "stepping_stone"}
    n_populations : int, default 4
    n_per_population : int or sequence of int, default 75
        Diploid individuals sampled per deme.
    n_snps : int or None, default 10000
        SNPs kept (None: every SNP passing ``min_maf``).
    fst : float, default 0.02
    population_size, n_chromosomes, chromosome_length, recombination_rate, mutation_rate, min_maf
        See above.
    admixed : int, default 0
    admixture_time : float, default 10
    random_state : None, int or numpy Generator

    Returns
    -------
    dosages : int8 ndarray (n_individuals, n_snps)
        Copies of the derived allele (0, 1, 2).
    populations : object ndarray (n_individuals,)
        Deme names ``"pop_0"``, ... (``"admixed"`` for the admixed individuals), in sampling order.

    Examples
    --------
    >>> G, pop = simulate_demes(n_populations=2, n_per_population=5, n_snps=50, n_chromosomes=2,
    ...                         chromosome_length=1e6, fst=0.05, random_state=0)  # doctest: +SKIP
    >>> G.shape, sorted(set(pop))  # doctest: +SKIP
    ((10, 50), ['pop_0', 'pop_1'])
    """
    msprime = _require("msprime")
    if model not in ("island", "stepping_stone"):
        raise ValueError(f"model == {model!r}, must be one of ('island', 'stepping_stone').")
    if not 0.0 < fst < 1.0:
        raise ValueError(f"fst == {fst}, must be in (0, 1).")
    if n_populations < 2:
        raise ValueError(f"n_populations == {n_populations}, must be >= 2.")
    rng = check_generator(random_state)
    d = int(n_populations)
    sizes = np.broadcast_to(np.asarray(n_per_population, dtype=int), (d,))
    m = (1.0 / fst - 1.0) * ((d - 1) / d) ** 2 / (4.0 * population_size)
    names = [f"pop_{j}" for j in range(d)]
    if model == "island":
        demo = msprime.Demography.island_model([population_size] * d, migration_rate=m)
    else:
        demo = msprime.Demography.stepping_stone_model([population_size] * d, migration_rate=m, boundaries=True)
    for j, pop in enumerate(demo.populations):
        pop.name = names[j]
    samples = {names[j]: int(sizes[j]) for j in range(d)}
    if admixed:
        demo.add_population(name="admixed", initial_size=population_size)
        demo.add_admixture(time=admixture_time, derived="admixed", ancestral=[names[0], names[1]],
                           proportions=[0.5, 0.5])
        samples["admixed"] = int(admixed)
    tables = []
    for _ in range(int(n_chromosomes)):
        seeds = rng.integers(1, 2**31 - 1, size=2)
        ts = msprime.sim_ancestry(samples=samples, demography=demo, sequence_length=chromosome_length,
                                  recombination_rate=recombination_rate, random_seed=int(seeds[0]))
        ts = msprime.sim_mutations(ts, rate=mutation_rate, model=msprime.BinaryMutationModel(),
                                   random_seed=int(seeds[1]))
        tables.append(_dosages_of(ts, None, min_maf, rng))
    G = np.concatenate([t[0] for t in tables], axis=1)
    pops = tables[0][1]
    if n_snps is not None:
        if G.shape[1] < n_snps:
            raise ValueError(f"the simulation has {G.shape[1]} SNPs with minor allele frequency >= {min_maf}, fewer "
                             f"than n_snps={n_snps}; simulate a longer genome (n_chromosomes, chromosome_length).")
        G = G[:, np.sort(rng.choice(G.shape[1], n_snps, replace=False))]
    return np.ascontiguousarray(G), pops


def simulate_stdpopsim(model: str = "OutOfAfrica_3G09", *, species: str = "HomSap", samples=None,
                       n_snps: int | None = 10_000, n_chromosomes: int = 10, chromosome_length: float = 5e6,
                       min_maf: float = 0.05, random_state=None):
    """SNP dosages from a published demographic model of stdpopsim's catalogue, simulated offline with msprime.

    The chromosomes are stdpopsim's generic contigs of ``chromosome_length`` bp with the species' mean recombination
    rate (a flat map: no genetic map is downloaded) and the model's mutation rate. ``model`` examples:
    ``"OutOfAfrica_3G09"`` (YRI, CEU, CHB; Gutenkunst et al. 2009) and ``"AmericanAdmixture_4B18"`` (AFR, EUR, ASIA
    and ADMIX, an admixed population formed 12 generations ago, 1/6 African, 1/3 European and 1/2 Asian; Browning et
    al. 2018).

    Parameters
    ----------
    model : str, default "OutOfAfrica_3G09"
    species : str, default "HomSap"
    samples : dict, optional
        Diploid individuals per population name (default 50 from each of the model's sampled populations).
    n_snps, n_chromosomes, chromosome_length, min_maf, random_state
        As :func:`simulate_demes`.

    Returns
    -------
    dosages : int8 ndarray (n_individuals, n_snps)
    populations : object ndarray (n_individuals,)
        The population names of the model.
    """
    stdpopsim = _require("stdpopsim")
    _require("msprime")
    rng = check_generator(random_state)
    sp = stdpopsim.get_species(species)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dm = sp.get_demographic_model(model)
        if samples is None:
            samples = {p.name: 50 for p in dm.populations if p.allow_samples}
        engine = stdpopsim.get_engine("msprime")
        parts = []
        for _ in range(int(n_chromosomes)):
            contig = sp.get_contig(length=chromosome_length, mutation_rate=dm.mutation_rate)
            ts = engine.simulate(dm, contig, dict(samples), seed=int(rng.integers(1, 2**31 - 1)))
            parts.append(_dosages_of(ts, None, min_maf, rng))
    G = np.concatenate([p[0] for p in parts], axis=1)
    if n_snps is not None:
        if G.shape[1] < n_snps:
            raise ValueError(f"the simulation has {G.shape[1]} SNPs with minor allele frequency >= {min_maf}, fewer "
                             f"than n_snps={n_snps}; simulate a longer genome (n_chromosomes, chromosome_length).")
        G = G[:, np.sort(rng.choice(G.shape[1], n_snps, replace=False))]
    return np.ascontiguousarray(G), parts[0][1]
