"""Small shared helpers (validation, randomness, threads, log-space numerics)."""

from pgmpy_ext.utils._docs import DOC_PARAMS, fill_doc
from pgmpy_ext.utils._gc import paused_gc, without_gc
from pgmpy_ext.utils._iterative import (
    ACCELERATORS,
    CONVERGENCE_CRITERIA,
    EMSteps,
    IterativeFit,
    dirichlet_tables,
    iterate,
    relative_change,
    run_starts,
)
from pgmpy_ext.utils._math import (
    LOG_PROB_FLOOR,
    LOG_TINY,
    log_normalize_rows,
    logsumexp_rows,
    normalize_columns,
    normalize_rows_in_threads,
    parallel_row_ranges,
)
from pgmpy_ext.utils.validation import (
    ANY,
    Interval,
    Options,
    check_generator,
    check_option,
    check_params,
    effective_n_threads,
    threads_for_rows,
)

__all__ = ["ANY", "Interval", "Options", "check_generator", "check_option", "check_params", "effective_n_threads",
           "threads_for_rows"]
__all__ += ["LOG_PROB_FLOOR", "LOG_TINY", "log_normalize_rows", "logsumexp_rows", "normalize_columns",
            "normalize_rows_in_threads", "parallel_row_ranges"]
__all__ += ["DOC_PARAMS", "fill_doc"]
__all__ += ["ACCELERATORS", "CONVERGENCE_CRITERIA", "EMSteps", "IterativeFit", "dirichlet_tables", "iterate",
            "relative_change", "run_starts"]
__all__ += ["paused_gc", "without_gc"]
