"""Structure-recovery metrics of Pena, Lozano & Larranaga (1999), Table 1: Right and Final (spec B.7)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["right_final"]


def right_final(blocks: Iterable, true_blocks: Iterable) -> tuple[int, int, float]:
    """``(Right, Final, Right / Final)`` of a learned partition of the attributes into nodes.

    ``Final`` is the number of nodes (singletons and supernodes) in ``blocks``; ``Right`` is the number of them
    whose attribute *set* equals a block of ``true_blocks`` (block order does not matter).

    Examples
    --------
    >>> right_final([("a", "b"), ("c",), ("d",)], [("b", "a"), ("c", "d")])
    (1, 3, 0.3333333333333333)
    """
    learned = [frozenset(b) for b in blocks]
    truth = {frozenset(b) for b in true_blocks}
    final = len(learned)
    right = sum(b in truth for b in learned)
    return right, final, (right / final if final else 0.0)
