"""The one protocol of every compiled-network layout: a flat float64 buffer cut into C-order blocks.

:class:`~pgmpy_ext.stats.NetworkLayout` (posteriors, E steps), :class:`~pgmpy_ext.stats.MultinetLayout` (CEM, CL
multinets) and :class:`~pgmpy_ext.stats.TMData` (TM) all describe parameters the same way: block ``b`` of the flat
buffer is a table in C order whose **first axis is the child's states** and whose remaining axes are the
conditioning variables (in the layout's documented order). Everything that depends only on that -- the size, block
views, packing and unpacking per-block tables, and the M-step normalisation with a Dirichlet ``alpha`` (uniform
columns for empty parent configurations, pgmpy ``DiscreteMLE``'s rule) -- is written once here.

A layout class inherits :class:`BlockLayout` and provides ``block_offsets`` (intp, ``n_blocks + 1``) and
``block_shapes`` (tuple of per-block shapes, child axis first).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pgmpy_ext.utils import normalize_columns

__all__ = ["BlockLayout"]


class BlockLayout:
    """Mixin of the flat-buffer protocol (see the module docstring).

    Subclasses define ``block_offsets`` and ``block_shapes``; block ``b`` is
    ``flat[block_offsets[b]:block_offsets[b + 1]].reshape(block_shapes[b])``.
    """

    block_offsets: np.ndarray
    block_shapes: tuple

    @property
    def size(self) -> int:
        """Length of the flat buffer."""
        return int(self.block_offsets[-1])

    @property
    def n_blocks(self) -> int:
        return int(len(self.block_offsets) - 1)

    def check_flat(self, flat, name: str = "flat buffer") -> np.ndarray:
        """``flat`` as a C-contiguous float64 array of shape ``(size,)``, or a ValueError naming it."""
        a = np.ascontiguousarray(flat, dtype=np.float64)
        if a.shape != (self.size,):
            raise ValueError(f"{name} has shape {a.shape}, expected ({self.size},) ({type(self).__name__}.size).")
        return a

    def block_at(self, flat: np.ndarray, b: int) -> np.ndarray:
        """View of block ``b`` of ``flat``, shaped ``block_shapes[b]`` (writes go through)."""
        lo, hi = int(self.block_offsets[b]), int(self.block_offsets[b + 1])
        return flat[lo:hi].reshape(self.block_shapes[b])

    def pack_blocks(self, tables: Sequence, *, log: bool = False, names: Sequence | None = None) -> np.ndarray:
        """Flat buffer from one table per block (any shape with the right number of entries, C order).

        ``log=True`` stores natural logs (``log 0 = -inf`` without a warning). ``names`` label the blocks in
        error messages."""
        tables = list(tables)
        if len(tables) != self.n_blocks:
            raise ValueError(f"got {len(tables)} tables, expected one per block ({self.n_blocks}).")
        out = np.empty(self.size, dtype=np.float64)
        for b, t in enumerate(tables):
            a = np.asarray(t, dtype=np.float64)
            lo, hi = int(self.block_offsets[b]), int(self.block_offsets[b + 1])
            if a.size != hi - lo:
                name = names[b] if names is not None else f"block {b}"
                raise ValueError(f"table of {name!r} has {a.size} entries, expected {hi - lo} "
                                 f"(shape {tuple(self.block_shapes[b])}).")
            out[lo:hi] = a.reshape(-1)
        if log:
            with np.errstate(divide="ignore"):
                np.log(out, out=out)
        return out

    def unpack_blocks(self, flat, *, exp: bool = False) -> list:
        """One table per block, shaped ``block_shapes[b]`` (copies); ``exp=True`` turns logs into probabilities."""
        flat = self.check_flat(flat)
        src = np.exp(flat) if exp else flat
        return [self.block_at(src, b).copy() for b in range(self.n_blocks)]

    def normalize(self, counts, alpha: float = 0.0, *, log: bool = False) -> np.ndarray:
        """M-step on every block: ``(counts + alpha)`` normalised over the child axis (axis 0).

        Parent configurations with a zero total get a uniform column (pgmpy's ``DiscreteMLE`` rule). ``alpha`` is
        the Dirichlet pseudo-count per cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``). Returns a new flat
        buffer of probabilities (or their natural logs with ``log=True``)."""
        counts = self.check_flat(counts, "counts")
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha == {alpha!r}, must be >= 0.")
        out = np.empty_like(counts)
        for b in range(self.n_blocks):
            lo, hi = int(self.block_offsets[b]), int(self.block_offsets[b + 1])
            r = int(self.block_shapes[b][0]) if len(self.block_shapes[b]) else 1
            out[lo:hi] = normalize_columns((counts[lo:hi] + alpha).reshape(r, -1)).reshape(-1)
        if log:
            with np.errstate(divide="ignore"):
                np.log(out, out=out)
        return out
