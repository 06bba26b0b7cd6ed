"""
A TAN classifier on Corral, drawn as its network
================================================

Corral (John, Kohavi & Pfleger 1994) has a class that is ``(A0 and A1) or (B0 and B1)``, an irrelevant feature
and a feature that agrees with the class 75% of the time. Naive Bayes treats the features as independent given the
class; a tree-augmented naive Bayes (TAN, Friedman, Geiger & Goldszmidt 1997) adds the tree of feature-feature arcs
with the largest conditional mutual information :math:`I(X_i; X_j \\mid C)`. The picture shows the class on top, the
class arcs in grey and the augmenting arcs in blue, labelled by their conditional mutual information: the pairs
``A0 - A1`` and ``B0 - B1`` carry the structure of the concept.
"""

import matplotlib.pyplot as plt
from sklearn.model_selection import cross_val_score

from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.datasets import make_corral
from pgmpy_ext.evaluation import plot_network

X, y = make_corral()
for clf in (NaiveBayesClassifier(), TANClassifier()):
    print(f"{type(clf).__name__}: 10-fold accuracy {cross_val_score(clf, X, y, cv=10).mean():.3f}")

tan = TANClassifier().fit(X, y)
fig, ax = plt.subplots(figsize=(6.5, 4.5))
plot_network(tan, ax=ax, title="TAN on Corral: augmenting arcs labelled by I(Xi; Xj | C)")
fig.tight_layout()
plt.show()

# %%
# The fitted network is a plain pgmpy ``DiscreteBayesianNetwork``: its CPDs keep the data's state names.
print(tan.model_.get_cpds("A1"))
