"""Encoded data: DataFrame <-> int32 (or narrow int8/int16) codes + original states + weights + missing-value
policy; the discrete-input side of the scikit-learn faces."""

from pgmpy_ext.data._columns import (
    ColumnCodes,
    MissingValueError,
    UnseenValuesWarning,
    column_arrays,
    frame_from_arrays,
    warn_mostly_unseen,
)
from pgmpy_ext.data._compound import CompoundColumn, compound_column, join_compound, split_compound
from pgmpy_ext.data._encoded import (
    CODES_DTYPES,
    FIT_MISSING,
    HANDLE_UNKNOWN,
    MAX_NUMERIC_STATES,
    MIN_NUMERIC_STATES,
    MISSING_POLICIES,
    ROWS_PER_NUMERIC_STATE,
    EncodedData,
    check_fit_frame,
    check_no_missing,
    check_numeric_columns,
    codes_dtype_for,
    column_kind,
    encode,
    int32_codes,
    kernel_codes,
    numeric_columns_to_discretize,
    numeric_state_limit,
    pgmpy_state_names,
    state_key,
    to_python,
)
from pgmpy_ext.data._input import (
    DASK_FIT,
    DASK_PREDICT,
    MISSING_OPTIONS,
    PARAMETER_VOCABULARY,
    DiscreteInputMixin,
    as_frame,
    check_numeric_frame,
    check_pgmpy_data,
    check_unique_columns,
    refuse_dask,
    validate_frame,
)

__all__ = ["EncodedData", "encode", "MISSING_POLICIES", "DiscreteInputMixin", "as_frame", "validate_frame"]
__all__ += ["HANDLE_UNKNOWN", "MAX_NUMERIC_STATES", "numeric_columns_to_discretize"]
__all__ += ["MIN_NUMERIC_STATES", "ROWS_PER_NUMERIC_STATE", "numeric_state_limit"]
__all__ += ["check_numeric_columns", "pgmpy_state_names"]
__all__ += ["FIT_MISSING", "check_fit_frame", "check_no_missing"]
__all__ += ["state_key", "to_python"]
__all__ += ["CODES_DTYPES", "codes_dtype_for", "kernel_codes", "int32_codes", "column_kind"]
__all__ += ["ColumnCodes", "MissingValueError", "UnseenValuesWarning", "column_arrays", "frame_from_arrays",
            "warn_mostly_unseen"]
__all__ += ["CompoundColumn", "compound_column", "join_compound", "split_compound"]
__all__ += ["MISSING_OPTIONS", "PARAMETER_VOCABULARY"]
__all__ += ["DASK_FIT", "DASK_PREDICT", "check_numeric_frame", "check_pgmpy_data", "check_unique_columns"]
__all__ += ["refuse_dask"]
