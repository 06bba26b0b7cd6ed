"""
Bayesian-network classifiers beside the usual baselines, fold by fold
=====================================================================

Tic-tac-toe endgames (958 boards, 9 squares, is it a win for x?) cross-validated on identical folds (10 folds) for
naive Bayes, TAN and kDB (k = 2), beside the tools a user tries first: the majority class, one-hot logistic
regression and a random forest. Each point is one fold; the diamond is the mean with its 95% interval (Nadeau &
Bengio's corrected resampled t).

Here the Bayesian-network classifiers lose clearly (about 0.70-0.80 against 0.98-0.99): the class is a disjunction
of eight three-in-a-row patterns, which one or two parents per square cannot represent, while a linear model on the
one-hot squares can. TAN and kDB recover part of what naive Bayes misses. On data like this, use the baseline.
``benchmarks/cv_accuracy.py`` cross-validates the Bayesian-network classifiers on the public UCI sets.
"""

import matplotlib.pyplot as plt
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from pgmpy_ext.classifiers import KDBClassifier, NaiveBayesClassifier, TANClassifier
from pgmpy_ext.datasets import make_tic_tac_toe
from pgmpy_ext.evaluation import cross_validate_learners, plot_fold_accuracies

X, y = make_tic_tac_toe()
learners = {
    "majority": DummyClassifier(),
    "logistic (one-hot)": make_pipeline(OneHotEncoder(), LogisticRegression(max_iter=1000)),
    "random forest": make_pipeline(OneHotEncoder(), RandomForestClassifier(100, random_state=0)),
    "naive Bayes": NaiveBayesClassifier(),
    "TAN": TANClassifier(),
    "kDB (k=2)": KDBClassifier(k=2),
}
results = cross_validate_learners(learners, X, y, n_splits=10, random_state=0)
print(results.groupby("learner", sort=False)["accuracy"].mean().round(3))

fig, ax = plt.subplots(figsize=(8, 4))
plot_fold_accuracies(results, ax=ax, title="tic-tac-toe: accuracy per fold (10 folds)")
fig.tight_layout()
plt.show()
