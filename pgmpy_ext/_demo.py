"""The ``make demo`` job: a real first run on data the demo makes itself, offline.

1. Read pgmpy's bundled ``asia`` network from the .bif.gz shipped in pgmpy's wheel (no Hugging Face hub) and
   sample a training and a test set from it.
2. Learn a TAN for ``dysp`` with pgmpy-ext's kernels (pairwise class-conditional counts -> CMI -> Kruskal), fit its
   CPDs from counts, and score the test set with the batch posterior kernel.
3. Learn a structure with pgmpy's own ``HillClimbSearch`` driven by pgmpy-ext's ``BICScore``.
4. Export the TAN to BIF and XMLBIF (state names made safe), read both back and check every CPD.
5. Run a pgmpy ``VariableElimination`` query on the learned TAN and compare it with the batch posterior.
6. The classifier family on Corral (seed 000 section 7.2, built in): NB, TAN, SBN and ABN structures, the SBN
   Bayesian complexity monitor trace, 10-fold CV accuracy, the SBN exported to BIF/XMLBIF and queried with pgmpy.
"""

from __future__ import annotations

import gzip
import time
import warnings
from importlib.resources import files
from pathlib import Path

import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork, VariableElimination, pgmpy_config

CLASS = "dysp"


def _asia() -> DiscreteBayesianNetwork:
    from pgmpy.readwrite import BIFReader

    raw = (files("pgmpy") / "utils/example_models/asia.bif.gz").read_bytes()
    return BIFReader(string=gzip.decompress(raw).decode()).get_model()


def run_demo(output_dir: str | Path = "demo_output", n_train: int = 5000, n_test: int = 2000, seed: int = 42,
             show_progress: bool = False, out=print) -> dict:
    """Run the demo job and return its key results (used by the tests)."""
    from pgmpy.causal_discovery import HillClimbSearch

    from pgmpy_ext.data import encode
    from pgmpy_ext.io import read_bif, read_xmlbif, write_bif, write_xmlbif
    from pgmpy_ext.models import BatchPosterior, build_network
    from pgmpy_ext.scores import BICScore
    from pgmpy_ext.structure import fit_tan_tree

    previous = pgmpy_config.SHOW_PROGRESS
    pgmpy_config.set_show_progress(bool(show_progress))
    try:
        output_dir = Path(output_dir)
        output_dir.mkdir(parents=True, exist_ok=True)
        truth = _asia()
        cols = sorted(truth.nodes())
        train = truth.simulate(n_samples=n_train, seed=seed, show_progress=False)[cols]
        test = truth.simulate(n_samples=n_test, seed=seed + 1, show_progress=False)[cols]
        out(f"pgmpy-ext demo: asia network (bundled with pgmpy), {n_train} training / {n_test} test rows, "
            f"class {CLASS!r}\n")

        # --- TAN with our kernels
        t0 = time.perf_counter()
        data = encode(train)
        tree = fit_tan_tree(data, CLASS)
        tan = build_network(tree.parent_sets(), data, alpha=1.0)
        t_fit = time.perf_counter() - t0
        out(f"TAN learned in {t_fit * 1e3:.1f} ms; augmenting arcs (I(Xi;Xj|C) in nats):")
        for k, p in enumerate(tree.parents):
            if p >= 0:
                out(f"  {tree.features[p]:>7} -> {tree.features[k]:<7} {tree.weights[p, k]:.4f}")
        t0 = time.perf_counter()
        post = BatchPosterior(tan, CLASS)
        proba = post.predict_proba(test)
        t_pred = time.perf_counter() - t0
        pred = np.asarray(post.classes, dtype=object)[proba.argmax(axis=1)]
        acc = float(np.mean(pred == test[CLASS].astype(object).to_numpy()))
        bayes = BatchPosterior(truth, CLASS).predict_proba(test)
        bayes_pred = np.asarray(BatchPosterior(truth, CLASS).classes, dtype=object)[bayes.argmax(axis=1)]
        bayes_acc = float(np.mean(bayes_pred == test[CLASS].astype(object).to_numpy()))
        out(f"test accuracy: TAN {acc:.4f} (Bayes-optimal with the true network: {bayes_acc:.4f}); "
            f"batch posterior for {n_test} rows in {t_pred * 1e3:.1f} ms\n")

        # --- pgmpy's own hill climbing, scored by our BIC
        t0 = time.perf_counter()
        hc = HillClimbSearch(scoring_method=BICScore(train), return_type="dag", show_progress=False).fit(train)
        dag = hc.causal_graph_
        out(f"pgmpy HillClimbSearch with pgmpy_ext.scores.BICScore ({time.perf_counter() - t0:.2f} s): "
            f"{len(dag.edges())} arcs: {sorted(dag.edges())}")
        true_skel = {frozenset(e) for e in truth.edges()}
        found = {frozenset(e) for e in dag.edges()}
        out(f"  skeleton arcs shared with the true asia network: {len(true_skel & found)} of {len(true_skel)}\n")

        # --- export / import
        bif, xml = output_dir / "asia_tan.bif", output_dir / "asia_tan.xml"
        write_bif(tan, bif)
        write_xmlbif(tan, xml)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            back_bif, back_xml = read_bif(bif), read_xmlbif(xml)
        same = all(back_bif.get_cpds(v) == tan.get_cpds(v) and back_xml.get_cpds(v) == tan.get_cpds(v)
                   for v in tan.nodes())
        out(f"exported {bif} and {xml}; read back with every CPD equal: {same}")

        # --- pgmpy inference on the learned model
        evidence = {"smoke": "yes", "xray": "yes", "tub": "no", "lung": "yes", "bronc": "yes", "either": "yes",
                    "asia": "no"}
        q = VariableElimination(tan).query([CLASS], evidence=evidence, show_progress=False)
        ours = post.predict_proba(_one_row(evidence, cols, CLASS))[0]
        out(f"VariableElimination P({CLASS} | {evidence}) = "
            f"{ {s: round(float(v), 4) for s, v in zip(q.state_names[CLASS], q.values)} }; batch posterior agrees: "
            f"{bool(np.allclose(q.values, ours[[post.classes.index(s) for s in q.state_names[CLASS]]], atol=1e-9))}")
        corral = _corral_section(output_dir, seed, out)
        return {"accuracy": acc, "bayes_accuracy": bayes_acc, "round_trip": same, "tan": tan,
                "hill_climb_edges": sorted(dag.edges()), **corral}
    finally:
        pgmpy_config.set_show_progress(previous)


def _corral_section(output_dir: Path, seed: int, out) -> dict:
    """NB / TAN / SBN / ABN on Corral: structures, SBN monitor, CV accuracy, export and a query on the SBN."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    from pgmpy_ext.classifiers import ABNClassifier, NaiveBayesClassifier, SBNClassifier, TANClassifier
    from pgmpy_ext.datasets import make_corral
    from pgmpy_ext.io import read_bif, read_xmlbif, write_bif, write_xmlbif

    X, y = make_corral()
    out("\n--- Corral (seed 000 section 7.2): class = (A0 and A1) or (B0 and B1); 'Irrelevant' is noise, "
        "'Correlated' agrees with the class 75% of the time; 128 rows")
    learners = {"NB": NaiveBayesClassifier(), "TAN": TANClassifier(), "SBN": SBNClassifier(), "ABN": ABNClassifier()}
    folds = StratifiedKFold(10, shuffle=True, random_state=seed)
    fitted, cv = {}, {}
    for name, est in learners.items():
        fitted[name] = clone(est).fit(X, y)
        cv[name] = float(cross_val_score(clone(est), X, y, cv=folds).mean())
        arcs = fitted[name].structure_.augmenting_edges()
        out(f"{name:>3}: {len(arcs)} augmenting arcs {arcs}; 10-fold CV accuracy {cv[name]:.3f}")
    sbn = fitted["SBN"]
    out("\nSBN Bayesian complexity monitor (k_e = 2 log2(n+1) - N I(Xu;Xv|C) in bits; an edge is kept while "
        "k_e < 0):")
    out(sbn.monitor_trace_.to_string(index=False))
    bif, xml = output_dir / "corral_sbn.bif", output_dir / "corral_sbn.xml"
    write_bif(sbn.model_, bif)
    write_xmlbif(sbn.model_, xml)
    back = [read_bif(bif), read_xmlbif(xml)]
    same = all(b.get_cpds(v) == sbn.model_.get_cpds(v) for b in back for v in sbn.model_.nodes())
    out(f"exported {bif} and {xml}; read back with every CPD equal: {same}")
    evidence = {"A0": 1, "A1": 1, "B0": 0, "B1": 0, "Irrelevant": 0, "Correlated": 0}
    q = VariableElimination(sbn.model_).query([sbn.class_node_], evidence=evidence, show_progress=False)
    ours = sbn.predict_proba(_one_row(evidence, list(X.columns), None))[0]
    out(f"VariableElimination on the SBN: P(class | {evidence}) = "
        f"{ {s: round(float(v), 4) for s, v in zip(q.state_names[sbn.class_node_], q.values)} }; "
        f"predict_proba agrees: {bool(np.allclose(q.values, ours, atol=1e-9))}")
    return {"corral_cv": cv, "corral_sbn_edges": sbn.structure_.augmenting_edges(), "corral_round_trip": same}


def _one_row(evidence: dict, cols: list, target):
    import pandas as pd

    return pd.DataFrame([{c: evidence[c] for c in cols if c != target}])
