"""
A topographic map of handwritten digits
=======================================

:class:`~pgmpy_ext.maps.NaiveBayesMap` is the naive Bayes map of Ruz's thesis (chapter 5): a 10 x 10 grid of
diagonal-Gaussian naive Bayes neurons trained online like a self-organising map, so that the map is also a density
model. Here it maps scikit-learn's 1,797 digits (8 x 8 pixels; the three pixels that are blank in every image are
dropped with one warning). Left: the winner neuron of every image, jittered so that images on the same neuron stay
visible, one marker per digit. Right: each neuron's distance to its grid neighbours (dark ridges separate regions).
Trustworthiness (are the map's neighbours true neighbours?) is printed beside PCA's.
"""

import warnings

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA

from pgmpy_ext.evaluation import trustworthiness_continuity
from pgmpy_ext.maps import NaiveBayesMap, plot_map, plot_neighbour_distances

digits = load_digits()
D = pd.DataFrame(digits.data / 16, columns=[f"px{r}{c}" for r in range(8) for c in range(8)])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the warning names the three constant pixels it drops
    nbm = NaiveBayesMap(random_state=0).fit(D)

used = D[nbm.feature_names_in_[nbm.used_features_]].to_numpy()
t_map, _ = trustworthiness_continuity(used, nbm.transform(D), n_neighbors=10)
t_pca, _ = trustworthiness_continuity(used, PCA(2).fit_transform(used), n_neighbors=10)
print(f"trustworthiness T(10): naive Bayes map {t_map:.3f}, PCA {t_pca:.3f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
first = slice(0, 600)  # 600 images keep the picture readable
plot_map(nbm.set_params(projection="hard").transform(D)[first], digits.target[first], ax=left, grid=(10, 10),
         jitter=0.35, title="winner neuron of 600 digits (jittered)")
handles, names = left.get_legend_handles_labels()
left.legend(handles, names, title="digit", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
nbm.set_params(projection="soft")
plot_neighbour_distances(nbm, ax=right, title="distance to grid neighbours")
fig.tight_layout()
plt.show()
