"""Shared pieces of the chapter-5 reproductions (naive Bayes maps): data, the four mapping methods, figure paths.

Spec: ``docs/decisions/seed000-sbn-cem-nbm.md`` sections 5.7 and 8.5. MiniSom and ugtm are optional: a method whose
package is missing is reported as not run, with the reason.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: (thesis name, PMLB file in ../shared/datasets/uci, thesis rows, note on the copy used here)
DATASETS = [
    ("Australian", "australian", 690, "As in the thesis (690 x 14)."),
    ("Breast", "breast_w", 683, "PMLB breast_w: 699 rows, the 16 missing Bare_Nuclei values already imputed (the "
                                "thesis dropped those rows: 683); 9 attributes, no ID (the thesis says 10, D17)."),
    ("Cleve", "cleve", 296, "PMLB copy: 303 rows (the thesis dropped 7 incomplete rows: 296)."),
    ("Crx", "crx", 653, "PMLB copy: 690 rows, missing values imputed (the thesis dropped them: 653)."),
    ("Diabetes", "diabetes", 768, "Pima Indians diabetes (PMLB 'diabetes': the same 768 rows as 'pima' in another "
                                  "row order and class coding, D17)."),
    ("Heart", "heart_statlog", 270, "As in the thesis."),
    ("Ionosphere", "ionosphere", 351, "As in the thesis; attribute 1 is constant (0 in every row) and is dropped, "
                                      "since a constant column cannot be z-scored (33 attributes used)."),
    ("Iris", "iris", 150, "As in the thesis."),
    ("Pima", "pima", 768, "Pima Indians diabetes (PMLB 'pima')."),
    ("Wine", "wine_recognition", 178, "As in the thesis."),
]


def load_standardised(file: str, data_home=None):
    """(z-scored float array with constant columns dropped, labels, names of dropped columns)."""
    from pgmpy_ext.datasets import load_dataset

    X, y = load_dataset(file, data_home=data_home, continuous="float")
    A = np.column_stack([np.asarray(X[c], dtype=np.float64) if not hasattr(X[c], "cat")
                         else np.asarray(X[c].astype(float), dtype=np.float64) for c in X.columns])
    sd = A.std(axis=0)
    keep = sd > 0
    dropped = [str(c) for c, k in zip(X.columns, keep) if not k]
    A = A[:, keep]
    A = (A - A.mean(axis=0)) / A.std(axis=0)
    return A, np.asarray(y), dropped


def figure_dir(report: Path) -> Path:
    d = Path(report).parent / "figures"
    d.mkdir(parents=True, exist_ok=True)
    return d


def save(ax_or_fig, path: Path) -> None:
    fig = getattr(ax_or_fig, "figure", ax_or_fig)
    fig.savefig(path, dpi=110, bbox_inches="tight")


# ---------------------------------------------------------------------------------------------- methods
def run_pca(X):
    from sklearn.decomposition import PCA

    return PCA(n_components=2, svd_solver="full").fit_transform(X)


NBM_RULES = ("thesis", "default")


def run_nbm(X, *, n_epochs=50, n_init=10, seed=0, grid=(10, 10), n_jobs=None, rule="thesis"):
    """NBM's soft projection of X and the fitted map. ``rule="thesis"`` (the reproductions): the thesis's rule
    (``THESIS_RULE``) with ``n_epochs`` and ``n_init``; ``rule="default"``: ``NaiveBayesMap()``'s own defaults
    (issue 27: principal-plane start, variance floor 1.0, one restart, z-scoring, projection temperature 0.75
    within a window of radius 0.45 of the grid side),
    ``n_epochs`` and ``n_init`` not used."""
    from pgmpy_ext.maps import THESIS_RULE, NaiveBayesMap

    if rule == "thesis":
        # the thesis's rule, not the estimator's defaults (which depart from it since issue 27)
        m = NaiveBayesMap(grid=grid, n_epochs=n_epochs, n_init=n_init, random_state=seed, standardize=False,
                          n_jobs=n_jobs, **THESIS_RULE).fit(X)
    elif rule == "default":
        m = NaiveBayesMap(grid=grid, random_state=seed, n_jobs=n_jobs).fit(X)
    else:
        raise ValueError(f"rule == {rule!r}: use one of {', '.join(map(repr, NBM_RULES))}.")
    return m.transform(X), m


def _som_decays(a0, a1, sigma0):
    def lr(learning_rate, t, max_iter):
        return a0 * (a1 / a0) ** (t / max_iter)

    def sig(sigma, t, max_iter):
        return sigma0 * np.exp(-2.0 * sigma0 * t / max_iter)

    return lr, sig


def run_som(X, *, n_epochs=1000, n_init=10, seed=0, grid=(10, 10)):
    """MiniSom with the thesis's schedules (Gaussian neighbourhood, sigma of eq. 5.19, alpha 0.5 -> 0.02), random
    weights, epochs of random order; the best of ``n_init`` runs by quantisation error (the thesis chose its best
    run visually from the class labels, which we do not do). Returns the hard projection (BMU grid positions) and
    the quantisation error, or raises ImportError when MiniSom is missing."""
    from minisom import MiniSom

    L1, L2 = grid
    sigma0 = max(L1, L2) / 2.0
    lr, sig = _som_decays(0.5, 0.02, sigma0)
    best = None
    seeds = np.random.SeedSequence(seed).generate_state(n_init)
    for s in seeds:
        som = MiniSom(L1, L2, X.shape[1], sigma=sigma0, learning_rate=0.5, decay_function=lr,
                      neighborhood_function="gaussian", random_seed=int(s))
        # MiniSom 2.3 accepts only named sigma decays; the thesis's (eq. 5.19) goes in its place.
        som._sigma_decay_function = sig
        som.random_weights_init(X)
        som.train(X, n_epochs, random_order=True, use_epochs=True)
        qe = som.quantization_error(X)
        if best is None or qe < best[0]:
            best = (qe, np.array([som.winner(x) for x in X], dtype=float))
    return best[1], best[0]


def gtm_loglik(model, X) -> float:
    """Log-likelihood of X under a fitted ugtm GTM (equal-weight isotropic Gaussians at the node images)."""
    from pgmpy_ext.utils import logsumexp_rows

    Y = np.asarray(model.matY)
    if Y.shape[1] != X.shape[1]:
        Y = Y.T
    beta = 1.0 / float(model.betaInv)
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    D = X.shape[1]
    lp = 0.5 * D * np.log(beta / (2 * np.pi)) - 0.5 * beta * d2
    return float(logsumexp_rows(lp).sum() - X.shape[0] * np.log(Y.shape[0]))


def run_gtm(X, *, niter=50, rbf_grid=(4, 5), k=10):
    """ugtm GTM on a k x k latent grid with 16 or 25 RBF centres (m = 4, 5), the better by log-likelihood;
    posterior-mean projection. ugtm initialises from PCA (deterministic), so there are no random restarts."""
    import warnings

    import ugtm

    best = None
    for m in rbf_grid:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = ugtm.runGTM(X, k=k, m=m, s=0.3, regul=0.1, niter=niter, verbose=False, random_state=0)
        ll = gtm_loglik(g, X)
        if best is None or ll > best[0]:
            best = (ll, np.asarray(g.matMeans, dtype=float), m * m)
    return best[1], best[0], best[2]
