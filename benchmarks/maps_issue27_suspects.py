"""Issue 27: one experiment per suspect for the collapse of NaiveBayesMap on digits (docs/decisions/issue27-maps.md).

Digits ``load_digits().data / 16`` with the 3 constant pixels dropped, z-scored for training (NBM's default), T(10)
and C(10) measured on the ``/ 16`` pixels (as PCA and MiniSom in benchmarks/maps_issue27.py). One map (seed 0),
10 x 10, 50 epochs, the thesis's schedules, unless an argument changes it:

    python benchmarks/maps_issue27_suspects.py "" "init='pca'" "floor=1.0" "init='pca',floor=1.0,exact=True" ...

Keywords: init ('uniform' | 'pca'), var0 ('uniform' or a number: the initial variances), sched ('thesis' |
'exp', with s_end: sigma decays exponentially from 5 to s_end), exact (variance update), floor (var_floor), E
(epochs), seed, temp (posterior temperature of the soft projection: posteriors ~ p(x|k)^(1/temp)).
Columns: T, C (soft projection), Th (hard projection, ties averaged), border (share of rows projected within 0.5
of the grid's edge), used (neurons that win a row), ll (training log-likelihood per row), sec (steps only).
"""
import sys
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA

from pgmpy_ext.evaluation import trustworthiness_continuity
from pgmpy_ext.maps import learning_rate_schedule as lr_schedule
from pgmpy_ext.maps import principal_plane, sigma_schedule
from pgmpy_ext.maps._nbsom import _log_likelihood
from pgmpy_ext.stats import NBMState, grid_coordinates
from pgmpy_ext.utils import log_normalize_rows

X = load_digits().data / 16
X = X[:, X.std(0) > 0]
Z = (X - X.mean(0)) / X.std(0)
N, n = Z.shape
G = (10, 10)
K = G[0] * G[1]
GXY = grid_coordinates(G)


def run(init="uniform", var0="uniform", sched="thesis", exact=False, floor=1e-6, E=50, seed=0, temp=1.0,
        s_end=None, lr=(0.1, 0.05)):
    rng = np.random.default_rng(seed)
    means = rng.random((K, n)) if init == "uniform" else principal_plane(Z, G)[0]
    v = rng.random((K, n)) + floor if var0 == "uniform" else np.full((K, n), float(var0))
    st = NBMState(means, v, GXY)
    s0 = 5.0
    t = time.perf_counter()
    for e in range(E):
        sig = float(sigma_schedule(s0, e, E)) if sched == "thesis" else s0 * (s_end / s0) ** (e / max(E - 1, 1))
        st.steps(Z, rng.permutation(N), sigma=sig, alpha=float(lr_schedule(lr, e, E)), var_floor=floor, exact=exact)
    el = time.perf_counter() - t
    lp = st.log_density(Z)
    Y = np.exp(log_normalize_rows(lp / temp)) @ GXY
    H = GXY[lp.argmax(1)]
    T, C = trustworthiness_continuity(X, Y, n_neighbors=10)
    Th, _ = trustworthiness_continuity(X, H, n_neighbors=10)
    border = float(np.mean((Y.min(1) < 0.5) | (Y.max(1) > G[0] - 1.5)))
    return {"T": round(T, 3), "C": round(C, 3), "Th": round(Th, 3), "border": round(border, 2),
            "used": len(np.unique(lp.argmax(1))), "ll": round(_log_likelihood(st, Z) / N, 1), "sec": round(el, 2)}


if __name__ == "__main__":
    print("PCA", [round(v, 3) for v in trustworthiness_continuity(X, PCA(2).fit_transform(X), n_neighbors=10)])
    for spec in sys.argv[1:]:
        print(repr(spec), run(**eval(f"dict({spec})")), flush=True)  # noqa: S307 (command-line experiment specs)
