"""Supernode (compound-column) codes: several discrete columns joined into one variable whose values are the
tuples of their member values (constructive induction, seed 003; spec ``docs/decisions/seed002-003-abn-pena.md``
B.1, B.10, B.14).

A compound column stores only the value combinations that occur: ``codes`` are compact (0 .. u - 1, u <= n rows),
``values`` is the decode map (row v = the member codes of compact value v, in lexicographic order of the member
codes), and ``full_card`` is the product of the member cardinalities (an exact Python int, kept apart for the
score: decision 9). Joins re-index pairwise (``code_a * u_b + code_b``, then compact), which never overflows
because u <= n; a mixed-radix index over the members is used only to look new rows up, and only while it fits in
int64 (a dictionary of tuples otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CompoundColumn", "compound_column", "join_compound", "split_compound"]


@dataclass(frozen=True, eq=False)
class CompoundColumn:
    """One supernode: member columns, compact codes, decode map and full cardinality.

    Attributes
    ----------
    members : tuple of int
        Column indices of the members, in block order (join order: concatenation).
    member_cards : tuple of int
        Cardinality of every member.
    codes : int32 (n_rows,)
        Compact value of every row, 0 .. u - 1.
    values : int32 (u, len(members))
        Decode map: the member codes of every compact value (lexicographic order).
    full_card : int
        Product of the member cardinalities (exact).

    Examples
    --------
    >>> codes = np.array([[0, 1, 2], [0, 1, 0], [1, 0, 2], [0, 1, 2]], dtype=np.int32)
    >>> c = compound_column(codes, [2, 2, 3], [0, 2])
    >>> c.codes.tolist(), c.values.tolist(), c.u, c.full_card
    ([1, 0, 2, 1], [[0, 0], [0, 2], [1, 2]], 3, 6)
    >>> j = join_compound(c, compound_column(codes, [2, 2, 3], [1]))
    >>> j.members, j.values.tolist(), j.full_card
    ((0, 2, 1), [[0, 0, 1], [0, 2, 1], [1, 2, 0]], 12)
    """

    members: tuple
    member_cards: tuple
    codes: np.ndarray
    values: np.ndarray
    full_card: int

    @property
    def u(self) -> int:
        """Number of observed value combinations."""
        return int(self.values.shape[0])

    def lookup(self, member_codes: np.ndarray) -> np.ndarray:
        """Compact codes of new rows given their member codes (n, len(members)); -1 where a combination was never
        observed or a member is missing (-1)."""
        member_codes = np.asarray(member_codes, dtype=np.int64).reshape(-1, len(self.members))
        out = np.full(member_codes.shape[0], -1, dtype=np.int32)
        ok = (member_codes >= 0).all(axis=1)
        if self.full_card < 2**62:
            radix = _radix(self.member_cards)
            keys = self.values.astype(np.int64) @ radix
            new = member_codes[ok] @ radix
            pos = np.searchsorted(keys, new)
            pos = np.minimum(pos, len(keys) - 1)
            hit = keys[pos] == new
            idx = np.nonzero(ok)[0]
            out[idx[hit]] = pos[hit]
            return out
        table = {tuple(v): k for k, v in enumerate(self.values.tolist())}
        for i in np.nonzero(ok)[0]:
            out[i] = table.get(tuple(member_codes[i].tolist()), -1)
        return out


def _radix(cards: Sequence[int]) -> np.ndarray:
    """Mixed-radix weights, last member fastest (so keys sort like the lexicographic member codes)."""
    w = np.ones(len(cards), dtype=np.int64)
    for k in range(len(cards) - 2, -1, -1):
        w[k] = w[k + 1] * int(cards[k + 1])
    return w


def _compact(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys' first-occurrence rows, compact codes) of an int64 key per row."""
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.astype(np.int32).reshape(-1)


def compound_column(codes: np.ndarray, cards: Sequence[int], members: Sequence[int]) -> CompoundColumn:
    """The compound column of ``members`` (column indices of the int32 ``codes``, complete data)."""
    members = tuple(int(m) for m in members)
    if not members:
        raise ValueError("a compound column needs at least one member column.")
    cards = [int(c) for c in cards]
    col = _single(codes, cards, members[0])
    for m in members[1:]:
        col = join_compound(col, _single(codes, cards, m))
    return col


def _single(codes: np.ndarray, cards: list, m: int) -> CompoundColumn:
    x = np.ascontiguousarray(codes[:, m], dtype=np.int32)
    if x.size and x.min() < 0:
        raise ValueError(f"column {m} has missing codes (-1); compound columns need complete data.")
    first, inverse = _compact(x.astype(np.int64))
    values = x[first].reshape(-1, 1).astype(np.int32)
    return CompoundColumn((m,), (cards[m],), inverse, values, cards[m])


def join_compound(a: CompoundColumn, b: CompoundColumn) -> CompoundColumn:
    """The Cartesian-product column of ``a`` then ``b`` (members concatenated), re-indexed compactly."""
    if a.codes.shape != b.codes.shape:
        raise ValueError(f"the columns have {a.codes.shape[0]} and {b.codes.shape[0]} rows; they must match.")
    key = a.codes.astype(np.int64) * b.u + b.codes
    first, inverse = _compact(key)
    values = np.hstack([a.values[a.codes[first]], b.values[b.codes[first]]]).astype(np.int32)
    return CompoundColumn(a.members + b.members, a.member_cards + b.member_cards, inverse,
                          np.ascontiguousarray(values), a.full_card * b.full_card)


def split_compound(col: CompoundColumn, point: int) -> tuple[CompoundColumn, CompoundColumn]:
    """Cut ``col`` after its first ``point`` members (1 <= point < len(members)) into a prefix and a suffix."""
    k = len(col.members)
    if not 1 <= point < k:
        raise ValueError(f"split point {point} must be in 1 .. {k - 1} for a node of {k} members.")
    parts = []
    for sl in (slice(0, point), slice(point, k)):
        sub = col.values[:, sl]  # decode map restricted to the part: compact it, then map the rows through it
        cards = col.member_cards[sl]
        if math.prod(cards) < 2**62:
            key_v = sub.astype(np.int64) @ _radix(cards)
        else:  # re-index column by column (always safe)
            key_v = np.zeros(sub.shape[0], dtype=np.int64)
            for t in range(sub.shape[1]):
                _, key_v = np.unique(key_v * int(cards[t]) + sub[:, t], return_inverse=True)
                key_v = key_v.reshape(-1).astype(np.int64)
        uniq, first_v, inv_v = np.unique(key_v, return_index=True, return_inverse=True)
        codes = inv_v.reshape(-1).astype(np.int32)[col.codes]
        parts.append(CompoundColumn(col.members[sl], cards, np.ascontiguousarray(codes),
                                    np.ascontiguousarray(sub[first_v]).astype(np.int32), math.prod(cards)))
    return parts[0], parts[1]
