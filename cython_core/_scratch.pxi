# Per-thread scratch rows without false sharing, textually included by the kernels that run prange over row or
# feature blocks (``include "_scratch.pxi"``): one definition, compiled into each module.


def _thread_rows(n_blocks, width, dtype, fill=None):
    """Per-thread scratch ``(n_blocks, w)`` with ``w >= width``: each row padded to whole 64-byte cache lines plus
    one, so that no cache line holds entries of two threads' rows (two threads writing their own rows of one
    unpadded array ping-ponged the shared lines: the column kernel ran 1.35x faster on 2 threads instead of ~2x)."""
    item = np.dtype(dtype).itemsize
    per_line = max(1, 64 // item)
    w = (max(int(width), 1) + per_line - 1) // per_line * per_line + per_line
    out = np.empty((int(n_blocks), w), dtype=dtype)
    if fill is not None:
        out.fill(fill)
    return out
