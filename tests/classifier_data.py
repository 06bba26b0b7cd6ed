"""Shared test data for the classifier tests: mixed-type discrete features driven by a 3-class target."""

from __future__ import annotations

import numpy as np
import pandas as pd


def mixed_frame(rng: np.random.Generator, n: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """``(X, y, base)``: columns ``a`` (int, 80% the class code), ``b`` (str categorical, 60% its parity), ``c``
    (bool noise), ``d`` (int noise, 10..13); ``y`` in {"lo", "mid", "hi"} and ``base`` its code 0/1/2."""
    y = rng.choice(["lo", "mid", "hi"], n)
    base = np.select([y == "lo", y == "mid"], [0, 1], 2)
    X = pd.DataFrame({
        "a": np.where(rng.random(n) < 0.8, base, rng.integers(0, 3, n)),
        "b": pd.Categorical(np.where(rng.random(n) < 0.6, base % 2, 1 - base % 2).astype(str)),
        "c": rng.random(n) < 0.5,
        "d": rng.integers(10, 14, n),
    })
    return X, y, base
