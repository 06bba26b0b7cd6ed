"""
BENCH on a microarray-like matrix: biclusters found, and what they are worth
============================================================================

A synthetic stand-in for a small microarray study: 65 samples (40 of one class, 25 of the other) by 500 genes of
standard-normal expression, with six planted biclusters (a group of samples over-expressing a group of genes): two
mostly from the positive class, two mostly from the negative class and two mixed. SAMBA
(:class:`~pgmpy_ext.biclustering.SAMBA`) looks for them without the labels, and BENCH
(:class:`~pgmpy_ext.ensembles.BENCHClassifier`, Pansombut's thesis, chapter 4) builds one K2 network per bicluster
whose class content passes a hypergeometric test and lets them vote. Beside it, on the same five stratified folds:
one K2 network on all genes, naive Bayes, and a random forest.

Left: the expression of the samples (rows, grouped by the first bicluster SAMBA put them in) on the genes of the
biclusters SAMBA found, then 60 other genes: the red blocks are what SAMBA recovered. Right: accuracy per fold.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

from pgmpy_ext.biclustering import SAMBA
from pgmpy_ext.classifiers import K2Classifier, NaiveBayesClassifier
from pgmpy_ext.datasets import make_planted_biclusters
from pgmpy_ext.ensembles import BENCHClassifier
from pgmpy_ext.evaluation import cross_validate_learners, plot_fold_accuracies
from pgmpy_ext.preprocessing import EqualWidthDiscretizer

X, y, planted = make_planted_biclusters(n_genes=500, random_state=0)
samba = SAMBA(n_seeds=100, random_state=0).fit(X)
found = [samba.get_indices(i) for i in range(len(samba.rows_))]


def jaccard(a, b):
    a, b = set(a), set(b)
    return len(a & b) / len(a | b)


for p in planted:
    best = max(jaccard(p["cols"], cols) for _, cols in found)
    print(f"planted {p['kind']:>5} bicluster, {len(p['rows'])} samples x {len(p['cols'])} genes: "
          f"best gene overlap (Jaccard) with a SAMBA bicluster {best:.2f}")

learners = {
    "BENCH": BENCHClassifier(biclusterer=SAMBA(n_seeds=100, random_state=0), random_state=0),
    "K2 network, all genes": make_pipeline(EqualWidthDiscretizer(3, columns="numeric"), K2Classifier()),
    "naive Bayes": make_pipeline(EqualWidthDiscretizer(3, columns="numeric"), NaiveBayesClassifier()),
    "random forest": RandomForestClassifier(500, random_state=0),
}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # a few single-member folds warn about their vote
    results = cross_validate_learners(learners, X, y, cv="stratified", n_splits=5, random_state=0)
print(results.groupby("learner", sort=False)["accuracy"].mean().round(3))

group = np.full(len(X), len(found))
for i, (rows, _) in reversed(list(enumerate(found))):
    group[rows] = i
order = np.lexsort((y.to_numpy(), group))
genes = list(dict.fromkeys(int(g) for _, cols in found for g in cols))
others = [g for g in np.random.default_rng(0).permutation(X.shape[1]) if g not in set(genes)][:60]
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [1.2, 1]})
image = left.imshow(X.to_numpy()[np.ix_(order, genes + others)], aspect="auto", cmap="RdBu_r", vmin=-3, vmax=3,
                    interpolation="nearest")
left.axvline(len(genes) - 0.5, color="black", lw=1)
left.set_xlabel(f"{len(genes)} genes of SAMBA's {len(found)} biclusters | 60 other genes")
left.set_ylabel("samples, grouped by bicluster")
left.set_title("expression (z-scores)")
fig.colorbar(image, ax=left, fraction=0.04)
plot_fold_accuracies(results, ax=right, title="accuracy per fold (5 stratified folds)")
fig.tight_layout()
plt.show()

# %%
# BENCH loses here, clearly. Why: with 52 training samples per fold the biclusters yield one Feature-Inclusion
# dataset, so the ensemble is a single K2 network trained on the 20-odd samples of one pair of biclusters (in two
# folds BENCH's guard replaces it with the K2 network on all genes). Such a member is right on most samples that
# sit in a class-homogeneous bicluster and guesses on the rest, where the network on all genes keeps its accuracy:
inside = np.zeros(len(X), dtype=bool)
for p in planted:
    if p["kind"] != "mixed":
        inside[p["rows"]] = True
right = {name: np.zeros(len(X), dtype=bool) for name in ("BENCH", "K2 network, all genes")}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        for name in right:
            model = learners[name].fit(X.iloc[train], y.iloc[train])
            right[name][test] = model.predict(X.iloc[test]) == y.iloc[test].to_numpy()
for name, ok in right.items():
    print(f"{name}: accuracy {ok[inside].mean():.2f} on the {inside.sum()} samples of the class-homogeneous "
          f"planted biclusters, {ok[~inside].mean():.2f} on the {(~inside).sum()} others")

# %%
# BENCH needs many biclusters with class content, which a study of this size rarely gives. On the real leukemia,
# colon and lymphoma arrays it does not reproduce the thesis's accuracy either
# (``docs/reproductions/seed004-bench.md``);
# with its guard it falls back to one K2 network there and stays a little below a random forest
# (``benchmarks/results/bench_heldout.md``). The biclusters themselves are worth having: SAMBA recovers three of the
# four class-homogeneous planted biclusters almost exactly (gene overlap 0.95-0.97) without seeing a label.
