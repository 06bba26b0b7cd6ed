"""Encoded data: DataFrame <-> int32 codes + original states + weights + missing-value policy."""

from pgmpy_ext.data._encoded import MISSING_POLICIES, EncodedData, encode

__all__ = ["EncodedData", "encode", "MISSING_POLICIES"]
