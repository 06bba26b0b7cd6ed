"""Weighted votes over the members of an ensemble (seed 004 section 5): majority, training error, confidence, soft."""

from __future__ import annotations

import numpy as np

__all__ = ["WEIGHTINGS", "member_weights", "weighted_vote"]

#: Built-in schemes: ``"majority"`` (w = 1), ``"training_error"`` (w = 1 - e), ``"confidence"`` (w = the member's
#: posterior of the class it votes for, per row), ``"soft"`` (sum of the members' posteriors).
WEIGHTINGS = ("majority", "training_error", "confidence", "soft")


def member_weights(scheme, probas: np.ndarray, train_errors: np.ndarray) -> np.ndarray:
    """Weight of each member's vote on each row, shape (n_members, n_rows).

    Parameters
    ----------
    scheme : {"majority", "training_error", "confidence", "soft"} or callable
        A callable gets ``(probas, train_errors)`` and returns an array broadcastable to (n_members, n_rows).
    probas : ndarray of shape (n_members, n_rows, n_classes)
        Each member's posterior.
    train_errors : ndarray of shape (n_members,)
        Each member's resubstitution error on its own training rows.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[[0.9, 0.1]], [[0.4, 0.6]]])
    >>> member_weights("confidence", p, np.array([0.1, 0.3])).tolist()
    [[0.9], [0.6]]
    >>> member_weights("training_error", p, np.array([0.1, 0.3])).round(2).tolist()
    [[0.9], [0.7]]
    """
    n_members, n_rows = probas.shape[:2]
    if callable(scheme):
        w = np.broadcast_to(np.asarray(scheme(probas, train_errors), dtype=np.float64), (n_members, n_rows))
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("a weighting callable must return finite non-negative weights.")
        return np.array(w)
    if scheme == "majority" or scheme == "soft":
        return np.ones((n_members, n_rows))
    if scheme == "training_error":
        return np.broadcast_to((1.0 - np.asarray(train_errors, dtype=np.float64))[:, None], (n_members, n_rows)).copy()
    if scheme == "confidence":
        return probas.max(axis=2)
    raise ValueError(f"weighting == {scheme!r}, must be one of {WEIGHTINGS} or a callable.")


def weighted_vote(probas: np.ndarray, train_errors: np.ndarray, scheme="confidence",
                  fallback_class: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Combine member posteriors: ``(scores, winner)`` with scores (n_rows, n_classes) summing to 1 per row.

    Each member votes for its most probable class (ties: the first class) with its weight; ``"soft"`` adds the
    posteriors instead. A tie between classes goes to the larger summed posterior, then to ``fallback_class``
    (the training majority class), then to the first class (the thesis leaves ties open).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[[0.9, 0.1]], [[0.4, 0.6]], [[0.45, 0.55]]])
    >>> weighted_vote(p, np.zeros(3), "majority")[1].tolist()     # two votes for class 1
    [1]
    >>> weighted_vote(p, np.zeros(3), "confidence")[1].tolist()   # 0.9 against 0.6 + 0.55
    [1]
    >>> weighted_vote(p, np.zeros(3), "soft")[1].tolist()         # 1.75 against 1.25
    [0]
    """
    probas = np.asarray(probas, dtype=np.float64)
    n_members, n_rows, k = probas.shape
    if n_members == 0:
        raise ValueError("an ensemble needs at least one member to vote.")
    w = member_weights(scheme, probas, train_errors)
    if scheme == "soft":
        scores = np.einsum("mr,mrk->rk", w, probas)
    else:
        votes = probas.argmax(axis=2)  # (n_members, n_rows)
        scores = np.zeros((n_rows, k))
        for c in range(k):
            scores[:, c] = (w * (votes == c)).sum(axis=0)
    summed = probas.sum(axis=0)
    top = scores.max(axis=1, keepdims=True)
    tied = np.isclose(scores, top, rtol=1e-12, atol=1e-12)
    key = np.where(tied, summed, -np.inf)
    top2 = key.max(axis=1, keepdims=True)
    tied2 = tied & np.isclose(key, top2, rtol=1e-12, atol=1e-12)
    winner = np.where(tied2[:, fallback_class], fallback_class, tied2.argmax(axis=1))
    total = scores.sum(axis=1, keepdims=True)
    scores = np.divide(scores, total, out=np.full_like(scores, 1.0 / k), where=total > 0)
    return scores, winner
