"""Clustering with Bayesian networks: classification-EM mixtures of Chow-Liu trees, TAN and SBN (seed 000 ch. 4)."""

from pgmpy_ext.clustering._base import BaseBNMixture
from pgmpy_ext.clustering._cem import CEMClustering, fit_cem
from pgmpy_ext.clustering._cem_engine import (
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
from pgmpy_ext.models import minimal_parents, multinet_to_network  # re-exported: they live in models

__all__ = ["CEMClustering", "CEM_INITS", "CEM_MODELS", "EMPTY_CLUSTER_POLICIES", "fit_cem", "minimal_parents",
           "multinet_to_network"]
__all__ += ["BaseBNMixture"]
__all__ += ["CEMParams", "CEMResult", "CEMStart", "MStep", "cem_single_start", "check_cem_params", "initial_partition"]
from pgmpy_ext.clustering._latent import (  # noqa: E402
    LATENT_COMBINES,
    LATENT_METHODS,
    LATENT_POLICIES,
    LatentClassData,
    LatentClassStart,
    align_starts,
    combine_starts,
    em_m_step,
    latent_class_data,
    latent_class_single_start,
    ma_step,
    mixture_log_joint,
    n_free_parameters,
    posteriors_constant,
)
from pgmpy_ext.clustering._latent_class import EMAClustering, LatentClassEM  # noqa: E402

__all__ += ["LATENT_COMBINES", "mixture_log_joint", "posteriors_constant"]
__all__ += ["LATENT_METHODS", "LATENT_POLICIES", "EMAClustering", "LatentClassData", "LatentClassEM",
            "LatentClassStart", "align_starts", "combine_starts", "em_m_step", "latent_class_data",
            "latent_class_single_start", "ma_step", "n_free_parameters"]
from pgmpy_ext.clustering._constructive import (  # noqa: E402
    CI_PARAM_SEARCHES,
    CI_SEARCHES,
    CIOptions,
    CIStart,
    ConstructiveInductionClustering,
    ci_single_start,
    unique_rows_with_counts,
)

__all__ += ["CI_PARAM_SEARCHES", "CI_SEARCHES", "CIOptions", "CIStart", "ConstructiveInductionClustering",
            "ci_single_start", "unique_rows_with_counts"]
from pgmpy_ext.clustering._ematan import (  # noqa: E402
    MODEL_MAX_CPD_SIZE,
    POLICIES,
    EMATANClustering,
    EMATANData,
    EMATANStart,
    combine_ematan_starts,
    ematan_single_start,
    prepare_ematan,
    random_nb_resp,
)

__all__ += ["EMATANClustering", "EMATANData", "EMATANStart", "MODEL_MAX_CPD_SIZE", "POLICIES",
            "combine_ematan_starts", "ematan_single_start", "prepare_ematan", "random_nb_resp"]
from pgmpy_ext.clustering._em_baselines import (  # noqa: E402
    CompleteBNData,
    CompleteBNStart,
    EMCompleteBNClustering,
    EMTANClustering,
    EMTANStart,
    complete_bn_single_start,
    emtan_single_start,
    prepare_complete_bn,
    prepare_emtan,
)

__all__ += ["CompleteBNData", "CompleteBNStart", "EMCompleteBNClustering", "EMTANClustering", "EMTANStart",
            "complete_bn_single_start", "emtan_single_start", "prepare_complete_bn", "prepare_emtan"]
from pgmpy_ext.clustering._brute_force import (  # noqa: E402
    BruteForceResult,
    BruteForceSNBAveraging,
    brute_force_snb,
    candidate_log_evidence,
    dirichlet_log_pdf,
    log_ml_independent,
)

__all__ += ["BruteForceResult", "BruteForceSNBAveraging", "brute_force_snb", "candidate_log_evidence",
            "dirichlet_log_pdf", "log_ml_independent"]
from pgmpy_ext.utils import run_starts  # noqa: E402, F401  (moved to utils; still importable here)
