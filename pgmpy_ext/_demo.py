"""The ``make demo`` job: a short tour of every family on data the demo makes itself, offline, in about a minute.

1. Read pgmpy's bundled ``asia`` network from the .bif.gz shipped in pgmpy's wheel (no Hugging Face hub) and
   sample a training and a test set from it.
2. Learn a TAN for ``dysp`` with pgmpy-ext's kernels (pairwise class-conditional counts -> CMI -> Kruskal), fit its
   CPDs from counts, and score the test set with the batch posterior kernel.
3. Learn a structure with pgmpy's own ``HillClimbSearch`` driven by pgmpy-ext's ``BICScore``.
4. Export the TAN to BIF and XMLBIF (state names made safe), read both back and check every CPD.
5. Run a pgmpy ``VariableElimination`` query on the learned TAN and compare it with the batch posterior.
6. Classifiers on Corral (John, Kohavi & Pfleger 1994, built in): NB, TAN, SBN and ABN structures, the SBN
   Bayesian complexity monitor trace, 10-fold CV accuracy, the SBN exported to BIF/XMLBIF and queried with pgmpy.
7. Discriminative parameters: naive Bayes with the TM algorithm's parameters on m-of-n-3-7-10, beside generative
   naive Bayes and logistic regression.
8. Clustering: a latent-class model on simulated answers with missing cells, beside k-means; membership picture.
9. Population structure: ``PopulationEMA`` on demes simulated with msprime (Balding-Nichols genotypes when msprime
   is absent), beside PCA + k-means; STRUCTURE-style bars.
10. A topographic map: ``NaiveBayesMap`` of scikit-learn's digits, trustworthiness beside PCA; map picture.
11. Dask: a TAN fitted on a dask DataFrame on a local cluster equals the in-memory one (skipped without dask).

Pictures go to ``output_dir`` as PNG files; without matplotlib they are skipped with a message and the rest runs.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import time
import warnings
from importlib.resources import files
from pathlib import Path

import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork, VariableElimination, pgmpy_config

CLASS = "dysp"
#: The demo's sections, in the order they run (``run_demo(sections=...)`` runs a subset).
SECTIONS = ("asia", "classifiers", "tm", "clustering", "population", "map", "dask")


def _asia() -> DiscreteBayesianNetwork:
    from pgmpy.readwrite import BIFReader

    raw = (files("pgmpy") / "utils/example_models/asia.bif.gz").read_bytes()
    return BIFReader(string=gzip.decompress(raw).decode()).get_model()


def run_demo(output_dir: str | Path = "demo_output", n_train: int = 5000, n_test: int = 2000, seed: int = 42,
             show_progress: bool = False, out=print, sections=SECTIONS, plots: bool = True) -> dict:
    """Run the demo job and return its key results (used by the tests).

    ``sections`` picks a subset of :data:`SECTIONS`; ``plots=False`` draws no picture (as when matplotlib is
    missing). Every picture's path is in the result's ``"pictures"``.
    """
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        raise ValueError(f"sections {unknown} are not demo sections; choose from {SECTIONS}.")
    start = time.perf_counter()
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    figure = _figure_factory(out) if plots and any(s in sections for s in ("clustering", "population", "map")) else None
    result: dict = {"pictures": []}
    previous = pgmpy_config.SHOW_PROGRESS
    pgmpy_config.set_show_progress(bool(show_progress))
    try:
        if "asia" in sections:
            result.update(_asia_section(output_dir, n_train, n_test, seed, out))
        if "classifiers" in sections:
            result.update(_corral_section(output_dir, seed, out))
        if "tm" in sections:
            result["tm"] = _tm_section(seed, out)
        if "clustering" in sections:
            result["clustering"] = _clustering_section(output_dir, seed, out, figure, result["pictures"])
        if "population" in sections:
            result["population"] = _population_section(output_dir, seed, out, figure, result["pictures"])
        if "map" in sections:
            result["map"] = _map_section(output_dir, seed, out, figure, result["pictures"])
        if "dask" in sections:
            result["dask"] = _dask_section(seed, out)
    finally:
        pgmpy_config.set_show_progress(previous)
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    out(f"\ndemo done in {time.perf_counter() - start:.1f} s (load average {load}); files in {output_dir}/"
        + (f", pictures: {', '.join(Path(p).name for p in result['pictures'])}" if result["pictures"] else ""))
    return result


def _asia_section(output_dir: Path, n_train: int, n_test: int, seed: int, out) -> dict:
    """TAN on data sampled from asia, pgmpy's hill climbing with our BIC, export and a pgmpy query."""
    from pgmpy.causal_discovery import HillClimbSearch

    from pgmpy_ext.data import encode
    from pgmpy_ext.io import read_bif, read_xmlbif, write_bif, write_xmlbif
    from pgmpy_ext.models import BatchPosterior, build_network
    from pgmpy_ext.scores import BICScore
    from pgmpy_ext.structure import fit_tan_tree

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
    return {"accuracy": acc, "bayes_accuracy": bayes_acc, "round_trip": same, "tan": tan,
            "hill_climb_edges": sorted(dag.edges())}


def _corral_section(output_dir: Path, seed: int, out) -> dict:
    """NB / TAN / SBN / ABN on Corral: structures, SBN monitor, CV accuracy, export and a query on the SBN."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    from pgmpy_ext.classifiers import ABNClassifier, NaiveBayesClassifier, SBNClassifier, TANClassifier
    from pgmpy_ext.datasets import make_corral
    from pgmpy_ext.io import read_bif, read_xmlbif, write_bif, write_xmlbif

    X, y = make_corral()
    out("\n--- Classifiers on Corral (John, Kohavi & Pfleger 1994): class = (A0 and A1) or (B0 and B1); "
        "'Irrelevant' is noise, 'Correlated' agrees with the class 75% of the time; 128 rows")
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

def _figure_factory(out):
    """``figure(figsize) -> matplotlib Figure`` (no pyplot, so no GUI backend is touched), or None with a message."""
    if importlib.util.find_spec("matplotlib") is None:
        out("matplotlib is not installed, so the demo draws no pictures (pip install 'pgmpy-ext[plot]'); "
            "everything else runs.\n")
        return None
    from matplotlib.figure import Figure

    return lambda figsize: Figure(figsize=figsize, layout="constrained")


def _save(fig, path: Path, pictures: list, out) -> None:
    fig.savefig(path, dpi=110)
    pictures.append(path)
    out(f"picture: {path}")


def _tm_section(seed: int, out) -> dict:
    """Naive Bayes with discriminative (TM) parameters against generative NB and logistic regression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_validate
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from pgmpy_ext.classifiers import NaiveBayesClassifier
    from pgmpy_ext.datasets import make_m_of_n
    from pgmpy_ext.parameters import TMEstimator

    X, y = make_m_of_n()
    out(f"\n--- Discriminative parameters (TM algorithm, Santafé 2007, chapter 5) on m-of-n-3-7-10 ({len(X)} rows): "
        "the class is 'at least 3 of 7 bits set', a linear rule naive Bayes can represent but its count-based "
        "(generative) CPTs miss")
    learners = {"naive Bayes (generative CPTs)": NaiveBayesClassifier(),
                "naive Bayes, TM parameters": NaiveBayesClassifier(estimator=TMEstimator()),
                "logistic regression (one-hot)": make_pipeline(OneHotEncoder(handle_unknown="ignore"),
                                                               LogisticRegression(max_iter=1000))}
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    scores = {}
    for name, est in learners.items():
        r = cross_validate(est, X, y, cv=folds, scoring=["accuracy", "neg_log_loss"])
        scores[name] = (float(r["test_accuracy"].mean()), float(-r["test_neg_log_loss"].mean()))
        out(f"  {name:<31} 5-fold CV accuracy {scores[name][0]:.3f}, log loss {scores[name][1]:.3f}")
    return scores


def _clustering_section(output_dir: Path, seed: int, out, figure, pictures: list) -> dict:
    """A latent-class model recovers a hidden grouping from noisy answers with missing cells."""
    import pandas as pd
    from sklearn.cluster import KMeans
    from sklearn.impute import SimpleImputer
    from sklearn.metrics import adjusted_rand_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from pgmpy_ext.clustering import LatentClassEM

    rng = np.random.default_rng(seed)
    n = 600
    group = rng.integers(0, 3, n)
    X = pd.DataFrame({f"q{i}": np.where(rng.random(n) < 0.75, group, rng.integers(0, 3, n)) for i in range(6)})
    X = X.mask(rng.random(X.shape) < 0.1)
    out(f"\n--- Clustering: {n} rows of six answers, each a noisy copy of a hidden group (3 groups), 10% missing")
    em = LatentClassEM(n_clusters=3, n_init=10, random_state=seed).fit(X)
    kmeans = make_pipeline(SimpleImputer(strategy="most_frequent"), OneHotEncoder(),
                           KMeans(3, n_init=10, random_state=seed))
    ari = {"LatentClassEM": adjusted_rand_score(group, em.labels_),
           "k-means on one-hot answers (imputed)": adjusted_rand_score(group, kmeans.fit_predict(X))}
    for name, value in ari.items():
        out(f"  adjusted Rand index with the hidden groups, {name}: {value:.3f}")
    out(f"  the latent-class model is a pgmpy network with latent node(s) {sorted(em.model_.latents)}; "
        f"BIC {em.bic(X):.1f}")
    _membership_picture(figure, em.predict_proba(X), np.array([f"group {g}" for g in group]),
                        "LatentClassEM: posterior membership of every row, grouped by its hidden group",
                        output_dir / "latent_classes.png", pictures, out)
    return {k: float(v) for k, v in ari.items()}


def _membership_picture(figure, q, groups, title: str, path: Path, pictures: list, out) -> None:
    """The membership bars of ``q`` grouped by ``groups`` saved to ``path`` (nothing without matplotlib)."""
    if figure is None:
        return
    from pgmpy_ext.evaluation import plot_membership

    fig = figure((9, 3.2))
    plot_membership(q, groups=groups, ax=fig.subplots(), title=title)
    _save(fig, path, pictures, out)


def _population_section(output_dir: Path, seed: int, out, figure, pictures: list) -> dict:
    """PopulationEMA on simulated demes, STRUCTURE-style bars."""
    from sklearn.metrics import adjusted_rand_score

    from pgmpy_ext.popgen import PopulationEMA, pca_kmeans_labels

    if importlib.util.find_spec("msprime") is not None:
        from pgmpy_ext.datasets import simulate_demes

        X, population = simulate_demes(n_populations=3, n_per_population=30, n_snps=3000, n_chromosomes=10,
                                       chromosome_length=2e6, fst=0.05, random_state=seed)
        source = "3 demes of an island model simulated with msprime (F_ST 0.05), 30 diploids each, 3000 SNPs"
    else:
        from pgmpy_ext.datasets import make_balding_nichols

        X, population = make_balding_nichols(n_individuals=90, n_populations=3, n_loci=300, fst=0.05,
                                             missing_rate=0.05, random_state=seed)
        population = np.array([f"pop_{p}" for p in population], dtype=object)
        source = ("3 Balding-Nichols populations (F_ST 0.05), 90 diploids, 300 loci, 5% missing "
                  "(msprime is not installed: pip install 'pgmpy-ext[popgen-sim]' for the coalescent simulation)")
    out(f"\n--- Population structure: {source}")
    ema = PopulationEMA(n_clusters=3, random_state=seed).fit(X)
    ari = {"PopulationEMA": adjusted_rand_score(population, ema.labels_),
           "PCA + k-means": adjusted_rand_score(population, pca_kmeans_labels(X, 3, random_state=seed))}
    for name, value in ari.items():
        out(f"  adjusted Rand index with the demes, {name}: {value:.3f}")
    out(f"  Reynolds' F_ST between the clusters {ema.fst_:.4f}; "
        f"mean largest membership {ema.q_.max(axis=1).mean():.3f}")
    _membership_picture(figure, ema.q_, population,
                        "PopulationEMA: membership of every individual, grouped by its deme",
                        output_dir / "population_structure.png", pictures, out)
    return {k: float(v) for k, v in ari.items()}


def _map_section(output_dir: Path, seed: int, out, figure, pictures: list) -> dict:
    """A naive Bayes map of scikit-learn's digits, trustworthiness beside PCA."""
    import pandas as pd
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA

    from pgmpy_ext.evaluation import trustworthiness_continuity
    from pgmpy_ext.maps import NaiveBayesMap

    digits = load_digits()
    D = pd.DataFrame(digits.data / 16, columns=[f"px{r}{c}" for r in range(8) for c in range(8)])
    out(f"\n--- Topographic map: NaiveBayesMap (Ruz's thesis, chapter 5), 10 x 10 neurons, scikit-learn's "
        f"{len(D)} digits (8 x 8 pixels)")
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the warning names the three pixels that are blank in every image
        nbm = NaiveBayesMap(random_state=seed).fit(D)
    out(f"  trained in {time.perf_counter() - t0:.1f} s")
    used = D[nbm.feature_names_in_[nbm.used_features_]].to_numpy()
    t_map, _ = trustworthiness_continuity(used, nbm.transform(D), n_neighbors=10)
    t_pca, _ = trustworthiness_continuity(used, PCA(2).fit_transform(used), n_neighbors=10)
    out(f"  trustworthiness T(10) (are the map's neighbours true neighbours?): naive Bayes map {t_map:.3f}, "
        f"PCA {t_pca:.3f}")
    if figure is not None:
        from pgmpy_ext.maps import plot_map, plot_neighbour_distances

        fig = figure((12, 5))
        left, right = fig.subplots(1, 2)
        first = slice(0, 600)  # 600 images keep the picture readable
        plot_map(nbm.set_params(projection="hard").transform(D)[first], digits.target[first], ax=left,
                 grid=(10, 10), jitter=0.35, title="winner neuron of 600 digits (jittered)")
        handles, names = left.get_legend_handles_labels()
        left.legend(handles, names, title="digit", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        nbm.set_params(projection="soft")
        plot_neighbour_distances(nbm, ax=right, title="distance to grid neighbours")
        _save(fig, output_dir / "digits_map.png", pictures, out)
    return {"trustworthiness_map": float(t_map), "trustworthiness_pca": float(t_pca)}


def _dask_section(seed: int, out, n_rows: int = 200_000) -> dict:
    """A TAN fitted on a dask DataFrame on a local cluster is the TAN fitted in memory."""
    missing = [name for name in ("dask", "distributed") if importlib.util.find_spec(name) is None]
    if missing:
        out(f"\n--- Dask: skipped, {' and '.join(missing)} not installed (pip install 'pgmpy-ext[dask]')")
        return {"skipped": True}
    import dask.dataframe as dd
    import pandas as pd
    from dask.distributed import Client, LocalCluster

    from pgmpy_ext.classifiers import TANClassifier

    rng = np.random.default_rng(seed)
    c = rng.integers(0, 2, n_rows)
    df = pd.DataFrame({"x1": (c + (rng.random(n_rows) < 0.2)) % 2, "x2": rng.choice(["a", "b", "c"], n_rows),
                       "x3": c * 2 + rng.integers(0, 2, n_rows), "label": np.where(c == 1, "yes", "no")})
    ddf = dd.from_pandas(df, npartitions=8)
    out(f"\n--- Dask: {n_rows:,} rows in 8 partitions on a local cluster (2 in-process workers)")
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster):
        clf = TANClassifier().fit(ddf.drop(columns="label"), ddf["label"])
        proba = clf.predict_proba(ddf.drop(columns="label")).compute()
    t_dask = time.perf_counter() - t0
    same = TANClassifier().fit(df.drop(columns="label"), df["label"])
    equal = sorted(clf.model_.edges()) == sorted(same.model_.edges()) and all(
        np.allclose(clf.model_.get_cpds(v).values, same.model_.get_cpds(v).values) for v in same.model_.nodes())
    out(f"  TAN fitted and {len(proba):,} rows scored on the cluster in {t_dask:.1f} s; the same network as the "
        f"in-memory fit: {equal}")
    return {"skipped": False, "same_model": bool(equal)}


def _one_row(evidence: dict, cols: list, target):
    import pandas as pd

    return pd.DataFrame([{c: evidence[c] for c in cols if c != target}])
