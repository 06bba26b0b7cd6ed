"""pgmpy structure scores on integer codes: drop-in, numerically equal replacements for pgmpy's discrete scores.

Pass an instance wherever pgmpy takes a score, e.g.
``pgmpy.causal_discovery.HillClimbSearch(scoring_method=BICScore(df), return_type="dag")``.
"""

from pgmpy_ext.scores._scores import AICScore, BDeuScore, BICScore, K2Score, LogLikelihoodScore, MDLScore

__all__ = ["AICScore", "BDeuScore", "BICScore", "K2Score", "LogLikelihoodScore", "MDLScore"]
