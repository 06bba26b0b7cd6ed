"""Shared pieces of the seed 001 chapter-7 reproductions (EMA vs EM, brute force, model detection, leukemia): the
multi-start fits on codes through the latent-class engine, seeding, and the thesis's W/D/L tables.

Spec: ``docs/decisions/seed001-ema-popgen.md`` sections 6-8 and 12.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["fit_multistart", "labels_of", "parse_wdl", "seed_sequence"]


def seed_sequence(*keys: int) -> np.random.Generator:
    """A generator determined by integer keys only (so results do not depend on run order or ``n_jobs``)."""
    return np.random.default_rng(np.random.SeedSequence([int(k) for k in keys]))


def fit_multistart(codes, cards, n_clusters: int, method: str, n_init: int, rng, *, policy: str = "best",
                   params_tol: float = 0.01, tol: float = 1e-6, max_iter: int = 1000, data=None,
                   return_starts=False, alpha: float = 1.0):
    """``n_init`` starts of EM or EMA (spawned children of ``rng``, :func:`pgmpy_ext.utils.run_starts`) combined with
    ``policy``.

    Returns ``(combined start, data)``, plus the list of starts when ``return_starts``. EM and EMA share the
    Dirichlet(1) priors and the parameter L-infinity rule ``params_tol`` (decision 6); EM also stops at the relative
    log-likelihood change ``tol`` (decision 2), whichever comes first (the driver's two criteria together).
    ``alpha`` is the Dirichlet pseudo-count (``alpha=0`` with ``method="em"``: maximum-likelihood EM, AMBIG-3).
    """
    from functools import partial

    from pgmpy_ext.clustering import combine_starts, latent_class_data, latent_class_single_start
    from pgmpy_ext.utils import run_starts

    if data is None:
        data = latent_class_data(np.ascontiguousarray(codes, dtype=np.int32), np.asarray(cards))
    rules = {"criterion": ("objective", "params"), "tol": (tol, params_tol)} if method == "em" else \
        {"criterion": "params", "tol": params_tol}
    starts = run_starts(partial(latent_class_single_start, data, n_clusters, method=method, alpha=float(alpha),
                                max_iter=max_iter, **rules), n_init, rng)
    best = combine_starts(data, starts, policy)
    return (best, data, starts) if return_starts else (best, data)


def labels_of(start, data) -> np.ndarray:
    """MAP cluster of every training row (ties: the smallest index)."""
    return np.argmax(start.resp, axis=1)[data.inverse]


def parse_wdl(text: str, n_keys: int) -> dict:
    """The thesis's W/D/L tables (spec section 8.3/8.5) as ``{keys: [(w, d, l, bold), ...]}``."""
    out = {}
    for line in text.strip().splitlines():
        head, cells = line.split("|")
        keys = tuple(int(v) for v in head.split()[:n_keys])
        vals = []
        for c in cells.split():
            m = re.fullmatch(r"(\d+)/(\d+)/(\d+)(\*?)", c)
            vals.append((int(m[1]), int(m[2]), int(m[3]), bool(m[4])))
        out[keys] = vals
    return out
