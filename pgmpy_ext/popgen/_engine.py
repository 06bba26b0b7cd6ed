r"""The fit of :class:`~pgmpy_ext.popgen.PopulationEMA`: data sources, the SVD start, the EM/EMA steps on the one
driver (:func:`pgmpy_ext.utils.iterate`, SQUAREM-accelerated by default) and the calibrated memberships (issue 28).

Design note: ``docs/decisions/issue28-population-structure.md``. The pieces:

* A **source** owns the genotypes and answers the passes a fit needs, so that the same fit runs in memory and on a
  dask array (``pgmpy_ext.dask.DaskDosages``): the E step at given parameters, the expected counts of given
  memberships (a start from labels), the products with the standardised genotype matrix (the SVD start) and the
  leave-one-out predictive memberships. :class:`DosageSource` holds int8 SNP dosages (every locus biallelic; the
  fast kernels of ``pgmpy_ext.stats``), :class:`CodesSource` any genotypes as allele-copy codes (multi-allelic
  loci, copies missing one at a time; the latent-class E step of ``pgmpy_ext.stats``).
* The **start**: Dirichlet(1) parameters (the thesis), or labels from k-means on the leading singular vectors of
  the standardised genotypes (:func:`svd_scores`, a randomized range finder whose random matrix comes from the fit's
  generator, then scikit-learn's ``KMeans``).
* The **steps** (:class:`PopulationSteps`): E step from the source, EMA's model-averaging step (or EM's M step, the
  same function with ``structure_prior=1``) from ``pgmpy_ext.clustering``, and the ``flat``/``unflat``/``project``
  hooks SQUAREM needs.
* The **memberships** (:func:`predictive_memberships`): the posterior of each individual's cluster with the
  clusters' allele frequencies integrated out under the F-model prior (Falush, Stephens & Pritchard 2003) whose
  per-cluster drift :func:`fmodel_drift` estimates by moments, the individual's own copies left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from pgmpy_ext.clustering import align_starts, ma_step, posteriors_constant
from pgmpy_ext.stats import (
    LatentClassLayout,
    dosage_allele_counts,
    dosage_allele_totals,
    dosage_band_products,
    dosage_counts_from_resp,
    dosage_estep,
    dosage_log_table,
    dosage_loo_log_posterior,
    dosage_slot_sums,
    dosage_standardized,
    dosage_std_matmul,
    dosage_std_rmatmul,
    latent_class_estep,
)
from pgmpy_ext.utils import LOG_PROB_FLOOR, dirichlet_tables, iterate, log_normalize_rows

__all__ = ["CodesSource", "DaskDosageSource", "DosageSource", "EStats", "FitResult", "PopulationSteps", "combine",
           "finish", "fit_start", "fmodel_drift", "fmodel_m_step", "ld_inflation", "ld_prune_mask",
           "predictive_log_joint", "predictive_memberships", "prior_counts", "svd_scores", "svd_start_scores"]

#: SQUAREM's projection keeps every frequency in [_CLIP, 1 - _CLIP] (fastmixture clips at 1e-5).
_CLIP = 1e-6
#: Bounds of a cluster's estimated drift F (below: the cluster's frequencies are the pooled ones).
_F_MIN, _F_MAX = 1e-6, 0.99


def _log(a: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(a), LOG_PROB_FLOOR)


@dataclass
class EStats:
    """One E step: log-likelihood, expected counts ``(R, K)`` in the latent-class layout, cluster counts and
    (optionally) the posteriors of the source's rows."""

    loglik: float
    counts: np.ndarray
    cluster_counts: np.ndarray
    resp: np.ndarray | None


# ------------------------------------------------------------------------------------------------ sources
class DosageSource:
    """In-memory int8 SNP dosages ``G`` (N, M), ``-1`` = missing genotype; every SNP polymorphic.

    The latent-class layout has two rows per SNP: ``2i`` allele 0 (dosage counts allele 1), ``2i + 1`` allele 1.
    """

    is_dosage = True

    def __init__(self, G: np.ndarray, ploidy: int):
        self.G = np.ascontiguousarray(G, dtype=np.int8)
        self.ploidy = int(ploidy)
        self.n_rows, self.n_snps = self.G.shape
        self.cards = np.full(self.n_snps, 2, dtype=np.intp)

    def layout(self, K: int) -> LatentClassLayout:
        return LatentClassLayout.build(self.cards, K, self.ploidy)

    def estep(self, theta, weights, *, missing: str, resp: bool) -> EStats:
        table = dosage_log_table(theta[1::2], self.ploidy, theta0=theta[0::2])
        res = dosage_estep(self.G, table, _log(weights), return_resp=resp, check=False)
        return _dosage_stats(res.loglik, res.sums, res.cluster_counts, res.resp, theta, missing)

    def counts_from_resp(self, resp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return dosage_counts_from_resp(self.G, resp, self.ploidy), resp.sum(axis=0)

    def standardized_products(self, mean: np.ndarray, scale: np.ndarray):
        """``(X @ B, X.T @ Y)`` as two functions of the standardised matrix ``X = (G - mean) / scale`` (0 where
        missing): ``X`` is built once when it takes at most 256 MB, else block by block in every product."""
        if self.G.size * 8 <= _CACHE_BYTES:
            X = dosage_standardized(self.G, mean, scale)
            return (lambda B: X @ B), (lambda Y: X.T @ Y)
        return (lambda B: dosage_std_matmul(self.G, mean, scale, B),
                lambda Y: dosage_std_rmatmul(self.G, mean, scale, Y))

    def allele_totals(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of allele 1 and observed copies per SNP, ``(M,)`` each."""
        return dosage_allele_totals(self.G, self.ploidy)

    def band_products(self, mean, scale, window: int) -> np.ndarray:
        """Products of every SNP with its ``window`` right-hand neighbours (``dosage_band_products``)."""
        return dosage_band_products(self.G, mean, scale, window)

    def subset(self, mask) -> DosageSource:
        """The same individuals on the SNPs of a boolean mask."""
        return DosageSource(self.G[:, np.flatnonzero(mask)], self.ploidy)

    def loo_log_posterior(self, A, q) -> np.ndarray:
        """Leave-one-out predictive log-likelihood (N, K) of every individual given ``A`` (R, K), counts + prior."""
        return dosage_loo_log_posterior(self.G, A[1::2], A[0::2], q, self.ploidy, check=False)

    def posteriors(self, theta, weights) -> np.ndarray:
        return self.estep(theta, weights, missing="available_case", resp=True).resp

    def ld_moments(self, theta, weights, q) -> tuple[np.ndarray, np.ndarray]:
        """``(V_sum, V_parts)`` (K, K) of :func:`ld_inflation` from one E step that keeps the log joints."""
        table = dosage_log_table(theta[1::2], self.ploidy, theta0=theta[0::2])
        res = dosage_estep(self.G, table, _log(weights), return_resp=True, log_joint=True, check=False)
        return _ld_moments_dosage(res.resp, q, dosage_slot_sums(self.G, q, self.ploidy), table)


def _ld_moments_dosage(L, q, sums, table) -> tuple[np.ndarray, np.ndarray]:
    """Within-cluster variances of the log-likelihood ratios ``L_dj - L_dk`` (``V_sum[k, j]``) and the sums over SNPs
    of the per-SNP ratios' variances (``V_parts[k, j]``), weighted by the memberships ``q[:, k]``."""
    K = q.shape[1]
    W = np.maximum(q.sum(axis=0), 1e-300)
    V_sum, V_parts = np.zeros((K, K)), np.zeros((K, K))
    for k in range(K):
        D = L - L[:, [k]]  # (N, K)
        mean = q[:, k] @ D / W[k]
        V_sum[k] = q[:, k] @ (D - mean) ** 2 / W[k]
        z = table - table[:, :, [k]]  # (M, S, K): per-SNP ratio of every slot
        w = sums[:, :, k][:, :, None] / W[k]  # (M, S, 1)
        m1 = (w * z).sum(axis=1)
        V_parts[k] = ((w * z * z).sum(axis=1) - m1 * m1).sum(axis=0)
    return V_sum, V_parts


def _dosage_stats(loglik, sums, nc, resp, theta, missing) -> EStats:
    a1, a0 = dosage_allele_counts(sums, theta[1::2], impute=missing == "impute")
    counts = np.empty((2 * a1.shape[0], a1.shape[1]))
    counts[0::2], counts[1::2] = a0, a1
    return EStats(float(loglik), counts, nc, resp)


_CACHE_BYTES = 2**28  # an in-memory standardised matrix up to this size is built once for the SVD start


class DaskDosageSource(DosageSource):
    """The passes of :class:`DosageSource` over a dask array of dosages (``pgmpy_ext.dask.DaskDosages``): one
    map-reduce per pass, one task per chunk of individuals, the tables summed in a fixed tree."""

    def __init__(self, dd):
        self.dd = dd
        self.ploidy = dd.ploidy
        self.n_rows, self.n_snps = dd.n_rows, dd.n_snps
        self.cards = np.full(self.n_snps, 2, dtype=np.intp)

    def estep(self, theta, weights, *, missing: str, resp: bool) -> EStats:
        table = dosage_log_table(theta[1::2], self.ploidy, theta0=theta[0::2])
        ll, sums, nc, r = self.dd.estep(table, _log(weights), want_resp=resp)
        return _dosage_stats(ll, sums, nc, r, theta, missing)

    def counts_from_resp(self, resp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.dd.counts_from_resp(resp), resp.sum(axis=0)

    def standardized_products(self, mean: np.ndarray, scale: np.ndarray):
        return (lambda B: self.dd.std_matmul(mean, scale, B)), (lambda Y: self.dd.std_rmatmul(mean, scale, Y))

    def allele_totals(self) -> tuple[np.ndarray, np.ndarray]:
        return self.dd.allele_totals()

    def band_products(self, mean, scale, window: int) -> np.ndarray:
        return self.dd.band_products(mean, scale, window)

    def subset(self, mask) -> DaskDosageSource:
        return DaskDosageSource(self.dd.subset(mask))

    def loo_log_posterior(self, A, q) -> np.ndarray:
        return self.dd.loo_log_posterior(A[1::2], A[0::2], q)

    def ld_moments(self, theta, weights, q) -> tuple[np.ndarray, np.ndarray]:
        table = dosage_log_table(theta[1::2], self.ploidy, theta0=theta[0::2])
        L, sums = self.dd.log_joint_and_sums(table, _log(weights), q)
        return _ld_moments_dosage(L, q, sums, table)


class CodesSource:
    """Any genotypes as allele-copy codes ``(N, n_loci * P)`` (``-1`` = missing copy), compressed to distinct rows
    (``pgmpy_ext.clustering.latent_class_data``); the latent-class E step of ``pgmpy_ext.stats``."""

    is_dosage = False

    def __init__(self, data, allele_counts: np.ndarray):
        self.data = data  # LatentClassData
        self.ploidy = int(data.ploidy)
        self.n_rows = int(data.n_rows)
        self.cards = np.asarray(data.cards, dtype=np.intp)
        self._counts = allele_counts  # (N, R) per-individual allele counts (missing copies not counted)
        lay = self.layout(1)
        per_locus = np.add.reduceat(allele_counts, lay.offsets[:-1], axis=1) if allele_counts.shape[1] else \
            allele_counts
        self._observed_copies = np.repeat(per_locus, self.cards, axis=1)  # (N, R) observed copies of the locus

    def layout(self, K: int) -> LatentClassLayout:
        return self.data.layout(K)

    def estep(self, theta, weights, *, missing: str, resp: bool) -> EStats:
        lay = self.layout(len(weights))
        res = latent_class_estep(lay, self.data.codes, self.data.weights, _log(theta), _log(weights), theta=theta,
                                 missing=missing, return_resp=True, check=False)
        return EStats(float(res.loglik), res.counts, res.cluster_counts, res.resp[self.data.inverse] if resp else None)

    def counts_from_resp(self, resp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._counts.T @ resp, resp.sum(axis=0)

    def standardized_products(self, mean: np.ndarray, scale: np.ndarray):
        """The codes path keeps the per-individual allele counts; a missing copy counts nothing there, so it is
        filled with the column's mean rate (the expected count of the observed copies' allele)."""
        X = self._counts - self._observed_copies * (mean / self.ploidy)[None, :]
        ok = scale > 0
        X[:, ok] /= scale[ok]
        X[:, ~ok] = 0.0
        return (lambda B: X @ B), (lambda Y: X.T @ Y)

    def allele_totals(self):
        raise NotImplementedError  # the codes path standardises per allele column (see svd_start)

    def loo_log_posterior(self, A, q) -> np.ndarray:
        return _codes_loo_log_posterior(self.data.codes[self.data.inverse], self.layout(A.shape[1]), A, q)

    def posteriors(self, theta, weights) -> np.ndarray:
        return self.estep(theta, weights, missing="available_case", resp=True).resp

    def ld_moments(self, theta, weights, q) -> tuple[np.ndarray, np.ndarray]:
        """:func:`ld_inflation`'s moments, locus by locus on the allele-copy codes."""
        lay = self.layout(len(weights))
        codes = self.data.codes[self.data.inverse]
        lt = _log(theta)
        P, K = self.ploidy, len(weights)
        W = np.maximum(q.sum(axis=0), 1e-300)
        L = np.zeros((codes.shape[0], K))
        V_parts = np.zeros((K, K))
        for v in range(lay.n_vars):
            o = int(lay.offsets[v])
            c = np.zeros((codes.shape[0], K))
            for col in codes[:, v * P:(v + 1) * P].T:
                obs = col >= 0
                c[obs] += lt[o + col[obs]]
            L += c
            for k in range(K):
                z = c - c[:, [k]]
                m1 = q[:, k] @ z / W[k]
                V_parts[k] += q[:, k] @ (z * z) / W[k] - m1 * m1
        V_sum = np.zeros((K, K))
        for k in range(K):
            D = L - L[:, [k]]
            mean = q[:, k] @ D / W[k]
            V_sum[k] = q[:, k] @ (D - mean) ** 2 / W[k]
        return V_sum, V_parts


def _codes_loo_log_posterior(codes, lay: LatentClassLayout, A: np.ndarray, q: np.ndarray | None) -> np.ndarray:
    """Polya-urn predictive of every individual's observed copies, per locus, with its own copies removed
    (``q`` None: nothing removed, new individuals): ``sum_k [lgamma(a_k + c_k) - lgamma(a_k)] - [lgamma(s + m) -
    lgamma(s)]`` with ``a = A - q c`` (counts + prior), ``c`` the individual's copies of allele k, ``m = sum c``."""
    n, K = codes.shape[0], A.shape[1]
    P = lay.ploidy
    out = np.zeros((n, K))
    for v in range(lay.n_vars):
        o, r = int(lay.offsets[v]), int(lay.cards[v])
        cols = codes[:, v * P:(v + 1) * P]
        c = np.stack([(cols == k).sum(axis=1) for k in range(r)], axis=1).astype(np.float64)  # (n, r)
        m = c.sum(axis=1)
        if not m.any():
            continue
        a = np.broadcast_to(A[o:o + r][None, :, :], (n, r, K))
        if q is not None:
            a = a - c[:, :, None] * q[:, None, :]
        a = np.maximum(a, 1e-12)
        s = a.sum(axis=1)
        out += (gammaln(a + c[:, :, None]) - gammaln(a)).sum(axis=1) - (gammaln(s + m[:, None]) - gammaln(s))
    return out


# ------------------------------------------------------------------------------------------------ SVD start
def svd_scores(matmul, rmatmul, n_rows: int, n_cols: int, k: int, rng: np.random.Generator, *,
               n_oversamples: int = 10, n_power: int = 4) -> np.ndarray:
    """Scores ``U_k S_k`` (n_rows, k) of the leading ``k`` singular vectors of a matrix known only through
    ``matmul(B) = X @ B`` and ``rmatmul(Y) = X.T @ Y`` (Halko, Martinsson & Tropp 2011: randomized range finder with
    ``n_power`` subspace iterations, what ``sklearn.utils.extmath.randomized_svd`` does).

    The Gaussian test matrix is drawn from ``rng``, so an in-memory matrix and a dask array of the same values give
    the same scores (up to rounding). Only ``n_rows``-sided matrices are orthonormalised (QR of ``(n_rows, l)``)
    and the small SVD is that of ``B B^T`` (``l x l``, ``B = Q^T X``), so nothing of the size of the SNPs is
    factorised. Signs are fixed so that the largest entry of every column is positive. ``2 + 2 n_power`` products
    in all: each is one pass over the data.
    """
    ell = min(k + n_oversamples, n_rows, n_cols)
    Q, _ = np.linalg.qr(matmul(rng.standard_normal((n_cols, ell))))
    for _ in range(n_power):
        Q, _ = np.linalg.qr(matmul(rmatmul(Q)))
    Bt = rmatmul(Q)  # (n_cols, ell) = (Q^T X)^T
    evals, evecs = np.linalg.eigh(Bt.T @ Bt)  # B B^T = U_b S^2 U_b^T, ascending
    order = np.argsort(evals)[::-1][:k]
    U = Q @ evecs[:, order]
    U *= np.where(U[np.argmax(np.abs(U), axis=0), np.arange(U.shape[1])] < 0, -1.0, 1.0)
    return U * np.sqrt(np.maximum(evals[order], 0.0))


def svd_start_scores(source, K: int, rng: np.random.Generator) -> np.ndarray:
    """Scores of the SVD start: the ``max(K - 1, 1)`` leading principal components of the genotypes standardised
    per allele column by :math:`\\sqrt{P p (1 - p)}` (Patterson, Price & Reich 2006), missing genotypes at the mean;
    k-means on them gives the labels of every start."""
    if source.is_dosage:
        mean, scale = _dosage_standardisation(source)
        n_cols = source.n_snps
    else:
        X = source._counts
        p = X.sum(axis=0) / np.maximum(source._observed_copies.sum(axis=0), 1e-12)
        mean = source.ploidy * p
        scale = np.sqrt(np.maximum(source.ploidy * p * (1.0 - p), 0.0))
        n_cols = X.shape[1]
    matmul, rmatmul = source.standardized_products(mean, scale)
    return svd_scores(matmul, rmatmul, source.n_rows, n_cols, max(K - 1, 1), rng)


def _dosage_standardisation(source) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, scale)`` per SNP of a dosage source: ``P p`` and :math:`\\sqrt{P p (1 - p)}` (Patterson, Price &
    Reich 2006), ``p`` the observed frequency of allele 1."""
    ones, copies = source.allele_totals()
    p = ones / np.maximum(copies, 1.0)
    return source.ploidy * p, np.sqrt(np.maximum(source.ploidy * p * (1.0 - p), 1e-12))


def ld_prune_mask(source, r2: float, window: int, scores: np.ndarray | None = None) -> np.ndarray:
    """SNPs kept by linkage pruning (PLINK's ``--indep-pairwise`` idea; ADMIXTURE's manual asks for it): walking
    along the SNPs in their order, a SNP is dropped when its squared correlation with a kept SNP among the
    ``window`` before it exceeds ``max(r2, 15.1 / N)`` (15.1: the 0.9999 quantile of chi-square(1), so that chance
    correlations of a small sample, ``N r^2 ~ chi-square(1)``, do not prune unlinked SNPs).

    The correlations are those of the standardised genotypes (missing at the mean) **after the population
    structure is projected out**: ``scores`` (N, k), the SVD start's leading components, are regressed out of every
    SNP, so unlinked SNPs that differ between populations (admixture linkage disequilibrium) are not taken for
    linked ones. One pass for the neighbour products and one for ``X.T @ Q`` (``Q`` the orthonormal basis of the
    scores); a block of linked SNPs keeps about one SNP per ``r2``-independent stretch."""
    mean, scale = _dosage_standardisation(source)
    M = source.n_snps
    w = int(min(window, max(M - 1, 1)))
    band = source.band_products(mean, scale, w)  # band[j, L] = x_j . x_{j+L}
    if scores is not None and scores.shape[1]:
        Q = np.linalg.qr(np.asarray(scores, dtype=np.float64))[0]
        B = source.standardized_products(mean, scale)[1](Q)  # (M, k): the SNPs' coordinates on the structure
        for L in range(w + 1):
            band[:M - L, L] -= np.einsum("ij,ij->i", B[:M - L], B[L:])
    var = np.maximum(band[:, 0], 0.0)
    keep = np.ones(M, dtype=bool)
    if M < 2:
        return keep
    lag_var = np.zeros((M, w))
    for L in range(1, w + 1):
        lag_var[:M - L, L - 1] = var[:M - L] * var[L:]
    with np.errstate(divide="ignore", invalid="ignore"):
        rsq = np.where(lag_var > 0, band[:, 1:] ** 2 / lag_var, 0.0)
    linked = rsq > max(float(r2), 15.1 / max(source.n_rows, 1))  # linked[j, L - 1]: SNPs j and j + L
    for j in np.flatnonzero(_has_left_link(linked)):  # the others have no linked SNP before them: kept
        lo = max(0, j - w)
        left = np.arange(lo, j)
        keep[j] = not np.any(keep[lo:j] & linked[left, j - left - 1])
    return keep


def _has_left_link(linked: np.ndarray) -> np.ndarray:
    """``out[j]``: SNP ``j`` is linked to some SNP among the ``window`` before it."""
    M, w = linked.shape
    out = np.zeros(M, dtype=bool)
    for L in range(1, w + 1):
        out[L:] |= linked[:M - L, L - 1]
    return out


# ------------------------------------------------------------------------------------------------ EM / EMA steps
class PopulationSteps:
    """Hooks of :func:`pgmpy_ext.utils.iterate`: parameters ``(theta (R, K), weights (K,), arc (n_vars,))``."""

    def __init__(self, source, K: int, *, alpha: float, structure_prior: float | str, missing: str):
        self.source, self.lay = source, source.layout(K)
        self.alpha, self.structure_prior, self.missing = float(alpha), structure_prior, missing
        if isinstance(structure_prior, str) and structure_prior != "fmodel":
            raise ValueError(f"structure_prior == {structure_prior!r}, must be a probability or 'fmodel'.")

    def e_step(self, params):
        theta, weights, _ = params
        res = self.source.estep(theta, weights, missing=self.missing, resp=False)
        return res, res.loglik

    def m_step(self, res, params=None):
        if isinstance(self.structure_prior, str):
            return fmodel_m_step(self.lay, res.counts, res.cluster_counts, self.alpha)
        return ma_step(self.lay, res.counts, res.cluster_counts, self.alpha, self.structure_prior)

    @staticmethod
    def flat(params):
        theta, weights, _ = params
        return np.concatenate([theta.ravel(), weights])

    @staticmethod
    def unflat(x, params):
        theta, weights, arc = params
        return x[:theta.size].reshape(theta.shape), x[theta.size:], arc

    def project(self, params):
        theta, weights, arc = params
        theta = np.clip(theta, _CLIP, 1.0 - _CLIP)
        theta = theta / self.lay.sum_by_variable(theta)[self.lay.state_var]
        weights = np.clip(weights, _CLIP, None)
        return theta, weights / weights.sum(), arc


def fmodel_m_step(lay: LatentClassLayout, counts: np.ndarray, cluster_counts: np.ndarray,
                  alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""EM's M step with every arc present and the clusters' allele frequencies at their posterior means under the
    F-model prior whose drifts are estimated from the same counts (empirical Bayes; :func:`fmodel_drift`):

    .. math::
        \theta_{ijk} = \frac{E N_{ijk} + \lambda_j \bar p_{ik}}{E N_{ij} + \lambda_j},\qquad
        \lambda_j = (1 - F_j) / F_j,

    the prior of the predictive memberships (:func:`predictive_memberships`). Every locus is shrunk towards the
    pooled frequencies by the same prior strength (a cluster's own drift), where EMA's averaging (:func:`ma_step`)
    shrinks each locus by its own arc posterior. Returns ``(theta (R, K), weights (K,), arc ones (n_vars,))``;
    the cluster weights are ``ma_step``'s."""
    A = prior_counts(counts, fmodel_drift(counts, lay, cluster_counts))
    theta = A / lay.sum_by_variable(A)[lay.state_var]
    K = lay.n_clusters
    weights = (cluster_counts + alpha) / (cluster_counts.sum() + K * alpha)
    return theta, weights, np.ones(lay.n_vars)


@dataclass
class FitResult:
    """One start (or the kept one) of a population fit."""

    theta: np.ndarray
    weights: np.ndarray
    arc_posterior: np.ndarray
    loglik: float
    ll_trace: np.ndarray
    n_iter: int
    converged: bool
    counts: np.ndarray
    cluster_counts: np.ndarray
    degenerate: bool = False
    resp: np.ndarray | None = None


def fit_start(source, K: int, rng: np.random.Generator, *, init, alpha: float, structure_prior: float,
              missing: str, tol: float, criterion: str, max_iter: int, accelerate: str | None,
              refine: float | str | None = None) -> FitResult:
    """One start from ``init`` (``"random"`` or labels (N,)) on the driver; the posteriors of the final parameters
    are kept when the source gives them.

    ``refine``: the structure prior of a second run from the first run's fixed point (its expected counts), to
    convergence under the same rule (1: EM's M step; ``"fmodel"``: :func:`fmodel_m_step`). The
    result keeps the first run's arc posteriors (EMA's relevance of the loci), the second run's parameters, and
    the two runs' traces and iterations together (``max_iter`` bounds their sum)."""
    steps = PopulationSteps(source, K, alpha=alpha, structure_prior=structure_prior, missing=missing)
    lay = steps.lay
    if isinstance(init, str):  # Dirichlet(1) in the latent-class engine's stream order (decision 7)
        *tables, prior = dirichlet_tables(rng, [*((int(r), K) for r in lay.cards), (K, 1)], stacked=True)
        params = (np.concatenate(tables, axis=0), prior[:, 0], np.full(lay.n_vars, np.nan))
        fit = iterate(steps, params, tol=tol, max_iter=max_iter, criterion=criterion, accelerate=accelerate)
    else:
        resp = np.zeros((source.n_rows, K))
        resp[np.arange(source.n_rows), np.asarray(init)] = 1.0
        counts, nc = source.counts_from_resp(resp)
        fit = iterate(steps, None, stats=EStats(0.0, counts, nc, None), tol=tol, max_iter=max_iter,
                      criterion=criterion, accelerate=accelerate)
    theta, weights, arc = fit.params
    trace, n_iter, converged = fit.trace, fit.n_iter, fit.converged
    if refine is not None and n_iter < max_iter:
        steps = PopulationSteps(source, K, alpha=alpha, structure_prior=refine, missing=missing)
        fit = iterate(steps, fit.params, stats=fit.stats, tol=tol, max_iter=max_iter - n_iter, criterion=criterion,
                      accelerate=accelerate)
        theta, weights, _ = fit.params
        trace, n_iter, converged = np.concatenate([trace, fit.trace]), n_iter + fit.n_iter, fit.converged
    return FitResult(theta, weights, arc, float(fit.objective), trace, n_iter, converged, fit.stats.counts,
                     fit.stats.cluster_counts)


def finish(source, result: FitResult, *, missing: str, with_resp: bool) -> FitResult:
    """Posteriors of the kept parameters (one more E step when the source holds the rows) and EMA's degenerate flag
    (spec 4.8)."""
    if with_resp:
        res = source.estep(result.theta, result.weights, missing=missing, resp=True)
        result.resp = res.resp
    arc_dead = np.nanmax(result.arc_posterior, initial=0.0) < 1e-6
    result.degenerate = bool(arc_dead or (result.resp is not None and posteriors_constant(result.resp)))
    return result


def combine(source, starts, policy: str, *, missing: str) -> FitResult:
    """Best Choice, or the (likelihood-weighted) average of the starts' parameters after Hungarian alignment of their
    posteriors to the best start's (spec section 6, decision 10), re-evaluated by one E step."""
    lls = np.array([s.loglik for s in starts])
    best = starts[int(np.argmax(lls))]
    if policy == "best" or len(starts) == 1:
        return best
    mix = (np.full(len(starts), 1.0 / len(starts)) if policy == "uniform"
           else np.exp(lls - lls.max()) / np.exp(lls - lls.max()).sum())
    for s in starts:  # the alignment needs every start's posteriors (fit_start keeps none)
        if s.resp is None:
            s.resp = source.posteriors(s.theta, s.weights)
    perms = align_starts(starts, best, np.ones(source.n_rows))
    theta = sum(m * s.theta[:, p] for m, s, p in zip(mix, starts, perms))
    weights = sum(m * s.weights[p] for m, s, p in zip(mix, starts, perms))
    arc = sum(m * np.nan_to_num(s.arc_posterior) for m, s in zip(mix, starts))
    res = source.estep(theta, weights, missing=missing, resp=True)
    return FitResult(theta, weights, arc, res.loglik, np.asarray([res.loglik]), max(s.n_iter for s in starts),
                     all(s.converged for s in starts), res.counts, res.cluster_counts, False, res.resp)


# ------------------------------------------------------------------------------------------------ memberships
def fmodel_drift(counts: np.ndarray, lay: LatentClassLayout, cluster_sizes: np.ndarray) -> tuple[np.ndarray,
                                                                                                 np.ndarray]:
    r"""Moment estimate of each cluster's drift ``F_j`` from the pooled frequencies, and those frequencies.

    Under the F-model (Balding & Nichols 1995; STRUCTURE's correlated-frequency model, Falush et al. 2003) cluster
    ``j``'s frequencies at a locus are Dirichlet(:math:`\bar p (1 - F_j) / F_j`) around the pooled :math:`\bar p`,
    so :math:`E\sum_k (p_{jk} - \bar p_k)^2 = F_j H` with :math:`H = 1 - \sum_k \bar p_k^2`; the estimated
    frequencies add the sampling variance :math:`H / c_j` of :math:`c_j` copies. With :math:`\bar p = \sum_j w_j
    \hat p_j` (``w`` the cluster shares) the observed mean of :math:`\sum_k (\hat p_{jk} - \bar p_k)^2 / H` over the
    loci is :math:`v_j = (1 - 2 w_j) s_j + \sum_l w_l^2 s_l` with :math:`s_j = F_j + 1 / c_j`; the linear system is
    solved for ``s`` (minimum-norm least squares: with two clusters of equal size only :math:`s_1 + s_2` is
    identifiable, and it is split equally) and :math:`F_j = s_j - 1/c_j`, clipped to [1e-6, 0.99].

    Returns
    -------
    drift : (K,)
    pbar : (R,) pooled frequencies
    """
    tot = lay.sum_by_variable(counts)  # (n_vars, K) expected copies
    sv = lay.state_var
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(tot[sv] > 0, counts / tot[sv], 0.0)
    w = cluster_sizes / max(float(cluster_sizes.sum()), 1e-300)
    pooled = counts.sum(axis=1)
    pbar = pooled / np.maximum(lay.sum_by_variable(pooled[:, None])[sv, 0], 1e-300)
    het = 1.0 - lay.sum_by_variable(pbar[:, None] ** 2)[:, 0]
    ok = (het > 1e-12) & (tot.min(axis=1) > 0)
    K = counts.shape[1]
    if not ok.any():
        return np.full(K, _F_MIN), pbar
    dev = lay.sum_by_variable((p - pbar[:, None]) ** 2)[ok] / het[ok][:, None]  # (n_ok, K)
    v = dev.mean(axis=0)
    copies = tot[ok].mean(axis=0)
    A = np.diag(1.0 - 2.0 * w) + np.outer(np.ones(K), w ** 2)
    # Singular when only sums of drifts are identifiable: two clusters of equal size see each other's deviation
    # from the pooled mean mirrored (v_1 = v_2 = (s_1 + s_2) / 4). The minimum-norm solution then splits the sum
    # equally; singular values below 1e-3 of the largest are cut, so near-singular systems do not amplify noise.
    s = np.linalg.lstsq(A, v, rcond=1e-3)[0]
    drift = np.clip(s - 1.0 / np.maximum(copies, 1e-300), _F_MIN, _F_MAX)
    return drift, pbar


def ld_inflation(V_sum: np.ndarray, V_parts: np.ndarray, q: np.ndarray) -> float:
    r"""How much the loci's log-likelihood ratios covary: :math:`\kappa = \sum V_{sum} / \sum V_{parts}` over the
    pairs of clusters (each weighted by the cluster's size), at least 1.

    The model multiplies the loci as if they were independent (linkage equilibrium); with linked loci its
    log-likelihood is a *composite* likelihood, whose log-likelihood ratios vary more than a likelihood's would:
    within a cluster, the variance of an individual's summed ratio ``L_dj - L_dk`` (``V_sum``) exceeds the sum of the
    per-locus variances (``V_parts``) by the covariances between loci. Dividing the ratios by
    :math:`\kappa` is the magnitude adjustment of a composite likelihood (Chandler & Bate 2007, Pauli, Racugno &
    Ventura 2011); for unlinked loci :math:`\kappa \approx 1` and nothing changes."""
    W = q.sum(axis=0)
    off = ~np.eye(len(W), dtype=bool)
    num = float((W[:, None] * V_sum)[off].sum())
    den = float((W[:, None] * V_parts)[off].sum())
    return max(1.0, num / den) if den > 0 else 1.0


def prior_counts(counts: np.ndarray, pseudo: tuple) -> np.ndarray:
    """Expected counts plus the F-model pseudo-counts ``pbar (1 - F_j) / F_j`` of every cluster, ``(R, K)``."""
    drift, pbar = pseudo
    return counts + pbar[:, None] * ((1.0 - drift) / drift)[None, :]


def predictive_memberships(source, counts, cluster_counts, lay, *, alpha: float, q: np.ndarray,
                           pseudo: tuple | None = None, inflation: float = 1.0) -> tuple[np.ndarray, tuple]:
    """Calibrated memberships of the source's individuals: ``P(C_d = j | x_d, the others)`` with the clusters'
    allele frequencies integrated out under the F-model prior (:func:`fmodel_drift`), each individual's own
    expected copies ``q_dj x_d`` (and its share ``q_dj`` of the cluster sizes) removed, and the loci's composite
    log-likelihood divided by ``inflation`` (:func:`ld_inflation`).

    Returns ``(memberships (N, K), pseudo)``; ``pseudo = (drift, pbar)`` is what prediction on new individuals
    reuses (:func:`predictive_log_joint`).
    """
    if pseudo is None:
        pseudo = fmodel_drift(counts, lay, cluster_counts)
    A = prior_counts(counts, pseudo)
    L = source.loo_log_posterior(A, q) / inflation
    L += np.log(np.maximum(cluster_counts[None, :] - q + alpha, 1e-300))
    return np.exp(log_normalize_rows(L)), pseudo


def predictive_log_joint(rows: np.ndarray, lay: LatentClassLayout, counts, cluster_counts, pseudo, *,
                         alpha: float, dosage: bool, inflation: float = 1.0) -> np.ndarray:
    """``log p(x_new, C = j | training data)`` of new individuals (N, K), up to a constant per row: the posterior
    predictive of their observed copies under every cluster (nothing to leave out) times the predictive cluster
    share ``(n_j + alpha) / (N + K alpha)``. ``rows`` are int8 dosages when ``dosage``, else allele-copy codes."""
    A = prior_counts(counts, pseudo)
    K = A.shape[1]
    if dosage:
        L = dosage_loo_log_posterior(rows, A[1::2], A[0::2], np.zeros((rows.shape[0], K)), lay.ploidy, check=False)
    else:
        L = _codes_loo_log_posterior(rows, lay, A, None)
    return L / inflation + np.log((cluster_counts + alpha) / (cluster_counts.sum() + K * alpha))[None, :]
