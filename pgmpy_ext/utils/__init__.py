"""Small shared helpers (validation, randomness, threads)."""

from pgmpy_ext.utils.validation import check_generator, check_option, effective_n_threads

__all__ = ["check_generator", "check_option", "effective_n_threads"]
