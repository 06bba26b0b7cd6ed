"""Clustering with Bayesian-network mixtures: classification EM (CEM-CL/TAN/SBN), latent-class EM and EMA, EMA-TAN
and its EM baselines, constructive induction, and the brute-force model average (seeds 000, 001 and 003).

The public API is ``__all__``: the estimators, their base ``BaseBNMixture`` and ``MODEL_MAX_CPD_SIZE``. The
engines behind them (one function or dataclass per algorithm, on encoded data) stay importable from here for the
other layers of pgmpy-ext (``popgen``, ``experiments``), the benchmarks and the tests; they are not part of the
public API and may change without notice (design note ``docs/decisions/issue24-one-vocabulary.md``, "Public surface").
"""

from pgmpy_ext.clustering._base import BaseBNMixture
from pgmpy_ext.clustering._brute_force import BruteForceSNBAveraging
from pgmpy_ext.clustering._cem import CEMClustering
from pgmpy_ext.clustering._constructive import ConstructiveInductionClustering
from pgmpy_ext.clustering._em_baselines import EMCompleteBNClustering, EMTANClustering
from pgmpy_ext.clustering._ematan import MODEL_MAX_CPD_SIZE, EMATANClustering
from pgmpy_ext.clustering._latent_class import EMAClustering, LatentClassEM, SelectiveLatentClassClustering

__all__ = ["BaseBNMixture", "BruteForceSNBAveraging", "CEMClustering", "ConstructiveInductionClustering",
           "EMAClustering", "EMATANClustering", "EMCompleteBNClustering", "EMTANClustering", "LatentClassEM",
           "MODEL_MAX_CPD_SIZE", "SelectiveLatentClassClustering"]

# Engines: importable for pgmpy-ext's own higher layers, benchmarks and tests; not public (not in __all__).
from pgmpy_ext.clustering._brute_force import (  # noqa: E402, F401
    BruteForceResult,
    brute_force_snb,
    candidate_log_evidence,
    dirichlet_log_pdf,
    log_ml_independent,
)
from pgmpy_ext.clustering._cem import fit_cem  # noqa: E402, F401
from pgmpy_ext.clustering._cem_engine import (  # noqa: E402, F401
    CEM_INITS,
    CEM_MODELS,
    EMPTY_CLUSTER_POLICIES,
    CEMParams,
    CEMResult,
    CEMStart,
    MStep,
    cem_single_start,
    check_cem_params,
    initial_partition,
)
from pgmpy_ext.clustering._constructive import (  # noqa: E402, F401
    CI_PARAM_SEARCHES,
    CI_SEARCHES,
    CIOptions,
    CIStart,
    ci_single_start,
    unique_rows_with_counts,
)
from pgmpy_ext.clustering._em_baselines import (  # noqa: E402, F401
    CompleteBNData,
    CompleteBNStart,
    EMTANStart,
    complete_bn_single_start,
    emtan_single_start,
    prepare_complete_bn,
    prepare_emtan,
)
from pgmpy_ext.clustering._ematan import (  # noqa: E402, F401
    POLICIES,
    EMATANData,
    EMATANStart,
    combine_ematan_starts,
    ematan_single_start,
    prepare_ematan,
    random_nb_resp,
)
from pgmpy_ext.clustering._latent import (  # noqa: E402, F401
    LATENT_COMBINES,
    LATENT_METHODS,
    LATENT_POLICIES,
    DistinctInit,
    LatentClassData,
    LatentClassStart,
    align_starts,
    combine_starts,
    dependency_seeds,
    em_m_step,
    empirical_inclusion_prior,
    latent_class_data,
    latent_class_single_start,
    ma_step,
    mixture_log_joint,
    n_free_parameters,
    n_selective_parameters,
    posteriors_constant,
    relevance_log_odds,
    seed_responsibilities,
    select_m_step,
)
from pgmpy_ext.clustering._micl import (  # noqa: E402, F401
    MICL_PRIOR,
    OMEGA_PRIORS,
    MICLResult,
    icl_variable_marginals,
    integrated_complete_likelihood,
    log_omega_prior,
    micl_optimize,
    micl_partition_sweep,
    micl_single_start,
    relevance_step,
)
