"""
A latent-class model recovers a hidden grouping
===============================================

Six categorical answers are noisy copies of a hidden group (each copy is right 75% of the time, otherwise a random
answer), and one column in ten is missing. :class:`~pgmpy_ext.clustering.LatentClassEM` fits a naive Bayes with a
hidden cluster node by multi-start EM, summing the missing cells out exactly. Beside it, the baseline a user tries
first: k-means on the one-hot encoded answers with the missing cells filled by the most frequent answer.

Each bar below is one row's posterior over the clusters, the rows grouped by the hidden group they came from: a
recovered grouping shows one colour per block.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.impute import SimpleImputer
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from pgmpy_ext.clustering import LatentClassEM
from pgmpy_ext.evaluation import plot_membership

rng = np.random.default_rng(0)
n = 600
group = rng.integers(0, 3, n)
X = pd.DataFrame({f"q{i}": np.where(rng.random(n) < 0.75, group, rng.integers(0, 3, n)) for i in range(6)})
X = X.mask(rng.random(X.shape) < 0.1)

em = LatentClassEM(n_clusters=3, n_init=10, random_state=0).fit(X)
kmeans = make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(), KMeans(3, n_init=10, random_state=0))
print(f"adjusted Rand index, latent-class EM: {adjusted_rand_score(group, em.labels_):.3f}")
print(f"adjusted Rand index, k-means on one-hot answers: {adjusted_rand_score(group, kmeans.fit_predict(X)):.3f}")

fig, ax = plt.subplots(figsize=(9, 3.2))
plot_membership(em.predict_proba(X), groups=np.array([f"group {g}" for g in group]), ax=ax,
                title="posterior cluster membership of every row, grouped by the hidden group")
fig.tight_layout()
plt.show()

# %%
# On these data the two partitions agree about as well with the hidden groups (adjusted Rand 0.90 for both): the
# answers are clean enough for k-means. What the latent-class model adds is a probabilistic model: calibrated
# memberships (``predict_proba``), missing cells summed out rather than imputed, a log-likelihood to compare numbers
# of clusters (``em.bic(X)``), and a pgmpy network with a latent ``cluster`` node for inference.
print(em.model_.latents, f"BIC {em.bic(X):.1f}")
