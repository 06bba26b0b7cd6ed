"""Small shared helpers (validation, randomness)."""

from pgmpy_ext.utils.validation import check_generator, check_option

__all__ = ["check_generator", "check_option"]
