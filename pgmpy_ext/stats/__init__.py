"""Python wrappers around the Cython kernels (the only package that imports pgmpy_ext._core)."""

from pgmpy_ext.stats._cem import (
    MultinetLayout,
    argmax_labels,
    multinet_counts_from_pairs,
    multinet_log_joint,
    normalize_blocks,
    reseed_empty_clusters,
    sample_labels,
)
from pgmpy_ext.stats._constructive import (
    SupernodeEStep,
    class_log_ml,
    completed_log_ml,
    join_log_ml,
    node_log_ml,
    supernode_counts,
    supernode_estep,
    supernode_offsets,
    to_base,
)
from pgmpy_ext.stats._counting import (
    PairwiseCounts,
    UniqueRows,
    decode_row_words,
    family_counts,
    family_counts_codes,
    family_counts_many,
    family_counts_shared,
    key_words,
    merge_row_words,
    merge_unique_rows,
    pair_offsets,
    pairwise_counts,
    unique_row_words,
    unique_rows,
)
from pgmpy_ext.stats._information import cmi_matrix, mi_matrix
from pgmpy_ext.stats._posterior import (
    HIDDEN,
    CLLResult,
    ColumnPlan,
    EStepResult,
    NetworkLayout,
    conditional_log_likelihood,
    estep_accumulate,
    log_joint_batch,
    log_joint_columns,
    posterior_batch,
    posterior_columns,
)
from pgmpy_ext.stats._scores import SCORE_KINDS, FamilyCounter, local_score
from pgmpy_ext.stats._selective import LOO_LOG_FLOOR, LOO_TIE_RTOL, LeaveOneOutNB
from pgmpy_ext.stats._tm import TMData, TMEvaluation

__all__ = ["PairwiseCounts", "UniqueRows", "family_counts", "family_counts_codes", "family_counts_many",
           "family_counts_shared", "pair_offsets",
           "pairwise_counts", "unique_rows", "key_words", "merge_unique_rows", "unique_row_words",
           "merge_row_words", "decode_row_words"]
__all__ += ["cmi_matrix", "mi_matrix", "SCORE_KINDS", "FamilyCounter", "local_score"]
__all__ += ["HIDDEN", "CLLResult", "ColumnPlan", "EStepResult", "NetworkLayout", "conditional_log_likelihood",
            "estep_accumulate", "log_joint_batch", "log_joint_columns", "posterior_batch",
            "posterior_columns"]
__all__ += ["LOO_LOG_FLOOR", "LOO_TIE_RTOL", "LeaveOneOutNB"]
__all__ += ["TMData", "TMEvaluation"]
__all__ += ["MultinetLayout", "argmax_labels", "multinet_counts_from_pairs", "multinet_log_joint", "normalize_blocks",
            "reseed_empty_clusters", "sample_labels"]
from pgmpy_ext.stats._marginal import (  # noqa: E402
    ForestPlan,
    forest_plan,
    log_joint_marginal,
    multinet_forest_plan,
    multinet_log_joint_marginal,
    rows_with_missing,
)

__all__ += ["ForestPlan", "forest_plan", "log_joint_marginal", "multinet_forest_plan", "multinet_log_joint_marginal",
            "rows_with_missing"]
from pgmpy_ext.stats._em import (  # noqa: E402
    MISSING_POLICIES,
    LatentClassLayout,
    LatentEStep,
    latent_class_estep,
    latent_class_log_joint,
    latent_class_mixture_log_joint,
    pairwise_dependence_topk,
)

__all__ += ["MISSING_POLICIES", "LatentClassLayout", "LatentEStep", "latent_class_estep", "latent_class_log_joint",
            "latent_class_mixture_log_joint", "pairwise_dependence_topk"]
__all__ += ["SupernodeEStep", "class_log_ml", "completed_log_ml", "join_log_ml", "node_log_ml", "supernode_counts",
            "supernode_estep", "supernode_offsets", "to_base"]
from pgmpy_ext.stats._nbsom import NBMState, grid_coordinates  # noqa: E402

__all__ += ["NBMState", "grid_coordinates"]
from pgmpy_ext.stats._embedding import neighbourhood_errors  # noqa: E402

__all__ += ["neighbourhood_errors"]
from pgmpy_ext.stats._ematan import (  # noqa: E402
    TANEStep,
    TANMixtureConstants,
    TANMixtureLayout,
    TANMixtureParams,
    ematan_accumulate,
    ematan_estep,
    ematan_log_joint,
    ematan_ma_step,
    max_abs_change,
    pair_cmi,
    tan_mixture_constants,
)

__all__ += ["TANEStep", "TANMixtureConstants", "TANMixtureLayout", "TANMixtureParams", "ematan_accumulate",
            "ematan_estep", "ematan_log_joint", "ematan_ma_step", "max_abs_change", "pair_cmi",
            "tan_mixture_constants"]
from pgmpy_ext.stats._samba import SambaImprovement, samba_improve  # noqa: E402

__all__ += ["SambaImprovement", "samba_improve"]

from pgmpy_ext.stats._k2 import K2_SCORE_KINDS, dirichlet_family_score, k2_parent_search  # noqa: E402

__all__ += ["K2_SCORE_KINDS", "dirichlet_family_score", "k2_parent_search"]
from pgmpy_ext.stats._popgen import (  # noqa: E402
    DOSAGE_BLOCK,
    DosageEStep,
    check_dosages,
    dosage_allele_counts,
    dosage_allele_totals,
    dosage_band_products,
    dosage_counts_from_resp,
    dosage_estep,
    dosage_log_table,
    dosage_loo_log_posterior,
    dosage_slot_sums,
    dosage_standardized,
    dosage_std_matmul,
    dosage_std_rmatmul,
    model_mi_with_cluster,
    pairwise_model_mi,
)

__all__ += ["DOSAGE_BLOCK", "DosageEStep", "check_dosages", "dosage_allele_counts", "dosage_allele_totals",
            "dosage_band_products",
            "dosage_counts_from_resp", "dosage_estep", "dosage_log_table", "dosage_loo_log_posterior",
            "dosage_slot_sums", "dosage_standardized", "dosage_std_matmul", "dosage_std_rmatmul",
            "model_mi_with_cluster", "pairwise_model_mi"]
