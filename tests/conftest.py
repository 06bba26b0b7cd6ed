"""Shared fixtures. Paths are built from this file's location, never from the current directory."""

from __future__ import annotations

import gzip
import os
import warnings
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def threads_on_small_data():
    """Every ``n_jobs=2`` in the tests really starts a second thread: the row thresholds below which the library
    keeps a pass on one thread (a performance choice, pgmpy_ext.utils.validation.MIN_ROWS_PER_THREAD and the
    normalisation's block size) are set to 1 row, so thread-count invariance is tested on small data too."""
    import pgmpy_ext.utils._math as math_mod
    import pgmpy_ext.utils.validation as val_mod

    saved = val_mod.MIN_ROWS_PER_THREAD, math_mod._MIN_THREAD_ROWS
    val_mod.MIN_ROWS_PER_THREAD, math_mod._MIN_THREAD_ROWS = 1, 1
    yield
    val_mod.MIN_ROWS_PER_THREAD, math_mod._MIN_THREAD_ROWS = saved


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """../shared/datasets next to the repository (or $PGMPY_EXT_DATA); skips when absent."""
    env = os.environ.get("PGMPY_EXT_DATA")
    path = Path(env) if env else REPO_ROOT.parent / "shared" / "datasets"
    if not path.is_dir():
        pytest.skip("../shared/datasets not found")
    return path


def load_bundled_network(name: str):
    """A network from the .bif.gz files bundled in pgmpy's wheel, read offline."""
    # pgmpy_ext._compat first: it filters pgmpy's import-time FutureWarning
    import pgmpy_ext._compat  # noqa: F401, I001
    from pgmpy.readwrite import BIFReader

    raw = (files("pgmpy") / f"utils/example_models/{name}.bif.gz").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BIFReader(string=gzip.decompress(raw).decode()).get_model()


@pytest.fixture(scope="session")
def asia_model():
    return load_bundled_network("asia")


@pytest.fixture(scope="session")
def asia_df(asia_model) -> pd.DataFrame:
    """2,000 rows sampled from asia (category dtype), columns in a fixed order."""
    df = asia_model.simulate(n_samples=2000, seed=0, show_progress=False)
    return df[sorted(asia_model.nodes())]


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)
