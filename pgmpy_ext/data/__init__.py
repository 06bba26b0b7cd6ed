"""Encoded data: DataFrame <-> int32 codes + original states + weights + missing-value policy; the discrete-input
side of the scikit-learn faces."""

from pgmpy_ext.data._encoded import MISSING_POLICIES, EncodedData, encode
from pgmpy_ext.data._input import DiscreteInputMixin, as_frame

__all__ = ["EncodedData", "encode", "MISSING_POLICIES", "DiscreteInputMixin", "as_frame"]
