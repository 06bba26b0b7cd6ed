"""Evaluation harness: cross-validation on identical folds, metrics, statistical tests and plots.

Spec: ``docs/decisions/seed001-tm-classifiers.md`` section 3 (decision rules, accuracy estimation, statistical
tests, harness) and ``docs/decisions/seed000-sbn-cem-nbm.md`` sections 2.3 and 6.1-6.3 (SBN monitor, accuracy,
clustering accuracy by voting and by one-to-one matching). The command-line face is ``pgmpy-ext evaluate``.
"""

from pgmpy_ext.evaluation._cv import (
    CV_PROTOCOLS,
    RESULT_COLUMNS,
    Split,
    cross_validate_learners,
    make_splits,
    summarize,
)
from pgmpy_ext.evaluation._metrics import (
    PROBA_FLOOR,
    accuracy,
    cluster_class_mapping,
    clustering_accuracy,
    conditional_log_likelihood_score,
    joint_log_proba,
    log_likelihood_score,
)
from pgmpy_ext.evaluation._network_plot import plot_network
from pgmpy_ext.evaluation._plots import plot_accuracy_comparison, plot_critical_difference, plot_sbn_monitor
from pgmpy_ext.evaluation._significance import (
    NEMENYI_Q,
    RANK_DECIMALS,
    FriedmanResult,
    MannWhitneyResult,
    TTestResult,
    WilcoxonResult,
    friedman_test,
    mann_whitney_u,
    nemenyi_critical_difference,
    nemenyi_q,
    paired_t_test,
    pairwise_tests,
    unpaired_t_test,
    wilcoxon_signed_rank,
)

__all__ = [
    "CV_PROTOCOLS", "NEMENYI_Q", "PROBA_FLOOR", "RANK_DECIMALS", "RESULT_COLUMNS", "FriedmanResult",
    "MannWhitneyResult", "Split", "TTestResult", "WilcoxonResult", "accuracy", "cluster_class_mapping",
    "clustering_accuracy", "conditional_log_likelihood_score", "cross_validate_learners", "friedman_test",
    "joint_log_proba", "log_likelihood_score", "make_splits", "mann_whitney_u", "nemenyi_critical_difference",
    "nemenyi_q",
    "paired_t_test", "pairwise_tests", "plot_accuracy_comparison", "plot_critical_difference", "plot_sbn_monitor",
    "summarize", "unpaired_t_test", "wilcoxon_signed_rank",
    "plot_network",
]
from pgmpy_ext.evaluation._plots import (  # noqa: E402
    cluster_profiles,
    mean_scores_by_dataset,
    plot_cluster_profiles,
    plot_fold_accuracies,
    plot_membership,
    plot_ranks_over_datasets,
)

__all__ += ["cluster_profiles", "mean_scores_by_dataset", "plot_cluster_profiles", "plot_fold_accuracies",
            "plot_membership", "plot_ranks_over_datasets"]
from pgmpy_ext.evaluation._structure_metrics import right_final  # noqa: E402

__all__ += ["right_final"]
from pgmpy_ext.evaluation._embedding import continuity, trustworthiness, trustworthiness_continuity  # noqa: E402

__all__ += ["continuity", "trustworthiness", "trustworthiness_continuity"]
from pgmpy_ext.evaluation._partition import (  # noqa: E402
    WinDrawLoss,
    comembership_hamming,
    comembership_hamming_naive,
    enumerate_nb_log_joint,
    independence_measure,
    kl_divergence_bits,
    matched_accuracy,
    win_draw_loss,
)

__all__ += ["WinDrawLoss", "comembership_hamming", "comembership_hamming_naive", "enumerate_nb_log_joint",
            "independence_measure", "kl_divergence_bits", "matched_accuracy", "win_draw_loss"]
