"""The ``pgmpy-ext`` command line.

``pgmpy-ext demo``     a short tour of every family on built-in data (classifiers, TM, clustering, population
                      structure, a topographic map, Dask), pictures in ``demo_output/``.
``pgmpy-ext evaluate`` cross-validate classifiers on a CSV/TSV file or a shared data set (identical folds, tests).
``pgmpy-ext fit``      learn one classifier on a file; write its pgmpy network (BIF/XMLBIF) and a JSON sidecar.
``pgmpy-ext predict``  predictions and class probabilities (CSV) of a fitted model on a file.
``pgmpy-ext cluster``  CEM, latent-class EM or EMA clustering of a file; labels and posteriors (CSV), optionally the
                      network.
``pgmpy-ext reproduce`` run a registered reproduction of a published table and write its report (``--list``).
``pgmpy-ext version``  print the versions of pgmpy-ext and its main dependencies.
``pgmpy-ext gallery``  draw every plot of ``pgmpy_ext.evaluation`` on built-in data (PNG files + a Markdown page).

``fit``, ``predict`` and ``cluster`` read data as ``evaluate`` does (same column rules, same header lines).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from pgmpy_ext._demo import SECTIONS as DEMO_SECTIONS
from pgmpy_ext.cli._evaluate import (
    _check_picture_path,
    _UsageError,
    add_reading_arguments,
    add_tm_arguments,
    check_learner_options,
    dropna_hint,
    int_at_least,
    n_jobs_value,
    one_line,
    row_label,
    tm_options,
)
from pgmpy_ext.data import state_key


def _version(_args) -> int:
    import numpy
    import pandas
    import pgmpy
    import sklearn

    import pgmpy_ext

    print(f"pgmpy-ext {pgmpy_ext.__version__} (pgmpy {pgmpy.__version__}, numpy {numpy.__version__}, "
          f"pandas {pandas.__version__}, scikit-learn {sklearn.__version__})")
    return 0


def _demo(args) -> int:
    from pgmpy_ext._demo import SECTIONS, run_demo

    run_demo(output_dir=args.output_dir, n_train=args.n_train, n_test=args.n_test, seed=args.seed,
             show_progress=not args.no_progress, sections=args.sections or SECTIONS, plots=not args.no_plots)
    return 0


def _gallery(args) -> int:
    from pgmpy_ext._gallery import make_gallery

    make_gallery(output_dir=args.output_dir, markdown=args.markdown, names=args.names or None)
    return 0


def _evaluate(args) -> int:
    from pgmpy_ext.cli._evaluate import run

    return run(args)


# ---------------------------------------------------------------------------------------------- fit / predict
_SIDECAR_FORMAT = "pgmpy-ext-model"
_NETWORK_SUFFIXES = {".bif": "bif", ".xml": "xmlbif", ".xmlbif": "xmlbif"}


def _network_format(path: Path, option: str) -> str:
    fmt = _NETWORK_SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise _UsageError(f"{option} {str(path)!r} must end in .bif (BIF) or .xml/.xmlbif (XMLBIF).")
    return fmt


def _write_network(model, path: Path) -> None:
    from pgmpy_ext.io import write_bif, write_xmlbif

    path.parent.mkdir(parents=True, exist_ok=True)
    (write_bif if _network_format(path, "--output") == "bif" else write_xmlbif)(model, path)


def _read_network(path: Path):
    from pgmpy_ext.io import read_bif, read_xmlbif

    reader = read_bif if _network_format(path, "--model") == "bif" else read_xmlbif
    if not path.is_file():
        raise _UsageError(f"the network file {str(path)!r} does not exist.")
    try:
        network = reader(path)
    except Exception as err:  # pgmpy's readers raise many types on a damaged file; name the file
        raise _UsageError(f"could not read the network {str(path)!r}: {type(err).__name__}: {err}") from None
    if not len(network.nodes()):
        raise _UsageError(f"the network file {str(path)!r} holds no network (no variable could be read); is it a "
                          f"{_network_format(path, '--model').upper()} file?")
    return network


def _plain(value):
    """A label as a JSON value (numpy scalars -> Python scalars)."""
    return value.item() if isinstance(value, np.generic) else value


def _literal(text: str):
    import ast

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text  # a bare word is a string


def _learner_params(args, cls) -> dict:
    """``--param NAME=VALUE`` options checked against the learner's ``get_params()``."""
    known = cls().get_params()
    out = {}
    for item in args.param or []:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise _UsageError(f"--param {item!r} must look like NAME=VALUE, e.g. --param k=2.")
        if name not in known or name in ("estimator", "show_progress"):
            raise _UsageError(f"--param {name!r} is not an option of {cls.__name__} (options: "
                              f"{', '.join(k for k in known if k not in ('estimator', 'show_progress'))}).")
        out[name] = _literal(value)
    return out


def _data_frame(args, *, need_target: bool):
    """(X, y or None, source name) from --data/--dataset, with the evaluate command's reading rules."""
    from pgmpy_ext.cli._evaluate import _load, _no_rows, _read_table

    if args.data is None and args.dataset is None:
        raise _UsageError("give the data: --data FILE" + (" --target COLUMN" if need_target else "") +
                          ", or --dataset NAME.")
    if args.data is not None and not args.target:
        if need_target:
            raise _UsageError("--data needs --target, the name of the class column.")
        frame = _read_table(args.data, args.sep, args)
        _no_rows(frame, args.data)
        return frame, None, args.data.name
    X, y = _load(args)
    return X, y, (args.data.name if args.data is not None else args.dataset)


def _fit_discretiser(kind: str, continuous: list, n_bins: int, X, y, *, supervised_ok: bool = True):
    """(transformed X, {column: cut points}) for the columns to cut, fitted on all the rows."""
    from pgmpy_ext.cli._evaluate import _discretizer

    if kind == "mdlp" and continuous and not supervised_ok:
        raise _UsageError("--discretize mdlp needs class labels (it is supervised); use equal-frequency or "
                          "equal-width for clustering.")
    disc = _discretizer(kind, continuous, n_bins)
    if disc is None:
        return X, {}
    disc.fit(X, y) if kind == "mdlp" else disc.fit(X)
    cols = getattr(disc, "columns_", None) or list(continuous)
    cuts = {c: [float(v) for v in np.asarray(disc.cut_points_[c], dtype=float)] for c in cols}
    return disc.transform(X), cuts


def _fit(args) -> int:
    from pgmpy_ext.cli._evaluate import (
        _discretize_how,
        _learners,
        _prepare,
        available_learners,
        columns_line,
        resolve_learner,
    )

    try:
        out_path = Path(args.output)
        fmt = _network_format(out_path, "--output")
        if args.plot is not None:
            _check_picture_path(args.plot)
        if "," in args.learner:
            raise _UsageError(f"--learner takes one name, got {args.learner!r}.")
        avail = available_learners()
        key, tm = resolve_learner(args.learner, avail)
        if key is None:
            raise _UsageError(f"unknown learner {args.learner!r}; available: {', '.join(sorted(avail))} (each also "
                              "with a '-tm' suffix when it takes a parameter estimator).")
        (label, clf), = _learners(args.learner, args.alpha, args.seed, tm_options(args)).items()
        extra = _learner_params(args, type(clf))
        params = clf.get_params()
        if "show_progress" in params:
            extra["show_progress"] = not args.no_progress
        if "n_jobs" in params:
            extra["n_jobs"] = args.n_jobs
        clf.set_params(**extra)
        check_learner_options(clf, f"learner {label}")
        X, y, source = _data_frame(args, need_target=True)
        X, y, continuous = _prepare(X, y, args.dropna)
        Xd, cuts = _fit_discretiser(args.discretize, continuous, args.bins, X, y)
    except _UsageError as err:
        print(f"pgmpy-ext fit: error: {err}", file=sys.stderr)
        return 2
    print(f"# {source}: {X.shape[0]} rows, {X.shape[1]} features, class {y.name!r}; learner {label} "
          f"({type(clf).__name__})")
    print(columns_line(X, continuous, _discretize_how(args.discretize, args.bins, ", on all the rows")))
    try:
        clf.fit(Xd, y)
    except (ValueError, TypeError) as err:
        print(f"pgmpy-ext fit: error: {one_line(err)}{dropna_hint(err, args)}", file=sys.stderr)
        return 2
    class_node = clf.class_node_
    if hasattr(clf, "model_"):
        network, kind = clf.model_, "single network"
    else:  # a multinet: one network per class, merged exactly into one network with the class as a root
        from pgmpy_ext.models import multinet_to_network

        network = multinet_to_network(clf.models_, clf.class_prior_, cluster_node=class_node)
        network.latents = set()
        kind = f"multinet of {len(clf.models_)} networks, written as one exactly equivalent network"
    _write_network(network, out_path)
    from pgmpy_ext import __version__

    sidecar = {
        "format": _SIDECAR_FORMAT, "format_version": 1, "pgmpy_ext_version": __version__,
        "network": out_path.name, "network_format": fmt, "network_kind": kind,
        "learner": args.learner, "learner_class": type(clf).__name__, "tm": tm,
        "tm_solver": clf.estimator.solver if tm else None,
        "tm_prior_strength": _plain(clf.estimator.prior_strength) if tm else None,
        "params": {k: v for k, v in clf.get_params(deep=False).items()
                   if (isinstance(v, (str, int, float, bool)) or v is None) and k not in ("show_progress", "n_jobs")},
        "class_node": _plain(class_node), "classes": [_plain(c) for c in clf.classes_],
        "features": [_plain(c) for c in X.columns],
        "discretizer": {"kind": args.discretize, "bins": args.bins, "cut_points": cuts} if cuts else None,
        "kept": [_plain(c) for c in X.columns if c not in cuts],
        "training": {"source": str(source), "rows": int(X.shape[0]), "dropna": bool(args.dropna)},
    }
    side = out_path.with_suffix(".json")
    side.write_text(json.dumps(sidecar, indent=2, default=str) + "\n", encoding="utf-8")
    arcs = sorted((str(a), str(b)) for a, b in network.edges())
    print(f"# {kind}: {len(network.nodes())} nodes, {len(arcs)} arcs; written to {out_path} ({fmt}) and {side}")
    if args.plot is not None:
        from pgmpy_ext.evaluation import plot_network

        drawn = plot_network(clf, title=f"{label} ({type(clf).__name__}) on {Path(str(source)).name}")
        fig = (drawn.flat[0] if isinstance(drawn, np.ndarray) else drawn).figure
        fig.savefig(args.plot, dpi=120, bbox_inches="tight")
        print(f"# structure picture saved to {args.plot}")
    return 0


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)) or v is pd.NA or v is pd.NaT


def _read_model_files(args):
    """(network, sidecar dict) from --model (a sidecar .json or a .bif/.xml with or without one beside it)."""
    path = Path(args.model)
    if not path.is_file():
        raise _UsageError(f"--model {str(path)!r} is not a file.")
    if path.suffix.lower() == ".json":
        try:
            side = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise _UsageError(f"--model {str(path)!r} is not a JSON file: {err}") from None
        if not isinstance(side, dict) or side.get("format") != _SIDECAR_FORMAT:
            raise _UsageError(f"--model {str(path)!r} is not a model file written by 'pgmpy-ext fit'.")
        lacking = [k for k in ("network", "class_node") if not isinstance(side.get(k), (str, int, float))]
        if lacking:
            raise _UsageError(f"--model {str(path)!r} lacks {lacking!r}: it is damaged or was not written by "
                              "'pgmpy-ext fit'; fit the model again.")
        return _read_network(path.parent / str(side["network"])), side
    network = _read_network(path)
    side_path = path.with_suffix(".json")
    if side_path.is_file():
        side = json.loads(side_path.read_text(encoding="utf-8"))
        if isinstance(side, dict) and side.get("format") == _SIDECAR_FORMAT and side.get("network") == path.name:
            return network, side
    if not args.target:
        raise _UsageError(f"--model {str(path)!r} has no sidecar {side_path.name!r} (written by 'pgmpy-ext fit'); "
                          "pass --target NODE to name the class node of this network.")
    if args.target not in network.nodes():
        raise _UsageError(f"--target {args.target!r} is not a node of {str(path)!r} (nodes: "
                          f"{sorted(map(str, network.nodes()))!r}).")
    return network, {"class_node": args.target, "classes": None, "discretizer": None}


def _prepare_new_rows(frame: pd.DataFrame, post, side: dict, handle_unknown: str):
    """The network's feature columns of ``frame`` as an object frame in the model's states: discretised with the
    saved cut points, whole-number floats as ints, unseen values -> missing (handle_unknown="ignore") or an error.
    Returns (frame, {column: number of unseen cells}, (n_rows, n_features) mask of the cells missing in the data)."""
    cuts = (side.get("discretizer") or {}).get("cut_points") or {}
    absent = [c for c in post.features if str(c) not in map(str, frame.columns)]
    if absent:
        raise _UsageError(f"the data lack the model's feature column(s) {absent!r}.")
    by_name = {str(c): c for c in frame.columns}
    out, unseen, missing = {}, {}, []
    for node in post.features:
        col = frame[by_name[str(node)]]
        if str(node) in cuts:
            x = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
            bad = ~np.isfinite(x) & col.notna().to_numpy()
            if bad.any():
                r = col.index[int(np.flatnonzero(bad)[0])]
                raise _UsageError(f"column {str(node)!r} was discretised at fit time but has the non-numeric value "
                                  f"{col.loc[r]!r} at row {r!r}.")
            codes = np.searchsorted(np.asarray(cuts[str(node)], dtype=float), x, side="right")
            values = [None if np.isnan(v) else int(k) for v, k in zip(x, codes)]
        else:
            values = [None if _is_missing(v) else _plain(v) for v in col.tolist()]
            values = [int(v) if isinstance(v, float) and v.is_integer() else v for v in values]
        missing.append([v is None for v in values])
        known = {state_key(s) for s in post.states[node]}
        for r, v in enumerate(values):
            if v is not None and state_key(v) not in known:
                if handle_unknown == "error":
                    text = ""
                    if isinstance(v, str) and v in {str(s) for s in post.states[node]}:
                        text = (" The file holds it as text: another cell of this column is not a number (a missing-"
                                "value marker such as '?' or '-'? name it with --na-values).")
                    raise _UsageError(f"column {str(node)!r} has value {v!r} at row {row_label(col.index[r])!r} "
                                      f"that was not seen during fit (known: {list(post.states[node])!r}); pass "
                                      f"--handle-unknown ignore to sum it out as a missing value.{text}")
                values[r] = None
                unseen[node] = unseen.get(node, 0) + 1
        out[node] = pd.Series(values, index=frame.index, dtype=object)
    mask = np.array(missing, dtype=bool).T.reshape(frame.shape[0], len(post.features))
    return pd.DataFrame(out, index=frame.index), unseen, mask


def _predict(args) -> int:
    from pgmpy_ext.cli._evaluate import _read_table
    from pgmpy_ext.models import BatchPosterior
    from pgmpy_ext.utils import LOG_PROB_FLOOR

    to_stdout = args.output is None
    info = (lambda s: print(s, file=sys.stderr)) if to_stdout else print
    try:
        network, side = _read_model_files(args)
        target = side["class_node"]
        if target not in network.nodes():
            raise _UsageError(f"the model's class node {target!r} is not in its network.")
        if args.data is None:
            raise _UsageError("give the data: --data FILE.")
        frame = _read_table(args.data, args.sep, args)  # --index-col: the row labels
        # missing (and, with --handle-unknown ignore, unseen) cells are summed out exactly, as in the classifiers
        post = BatchPosterior(network, target, missing="skip")
        # the classifiers floor every log-CPT entry at log(1e-300) when predicting; do the same here
        np.maximum(post.compiled.log_cpt, LOG_PROB_FLOOR, out=post.compiled.log_cpt)
        rows, unseen, missing = _prepare_new_rows(frame, post, side, args.handle_unknown)
        n_missing = int(missing.sum())
        if args.missing == "error" and n_missing:
            i, j = (int(v[0]) for v in np.nonzero(missing))
            raise _UsageError(f"column {str(rows.columns[j])!r} has a missing value at row "
                              f"{row_label(rows.index[i])!r}; pass --missing available_case to sum missing cells "
                              "out exactly.")
    except _UsageError as err:
        print(f"pgmpy-ext predict: error: {err}", file=sys.stderr)
        return 2
    classes = side.get("classes") or list(post.classes)
    idx = {state_key(c): k for k, c in enumerate(post.classes)}
    order = [idx[state_key(c)] for c in classes]
    proba = post.predict_proba(rows)[:, order]
    pred = [classes[k] for k in np.argmax(proba, axis=1)]
    result = pd.DataFrame({"prediction": pred}, index=frame.index)
    for k, c in enumerate(classes):
        result[f"P({c})"] = proba[:, k]
    if result.index.name is None:
        result.index.name = "row"
    info(f"# {args.data.name}: {len(result)} rows; class {target!r}, {len(classes)} classes")
    if unseen:
        info(f"# values not seen during fit, summed out as missing: "
             f"{', '.join(f'{c} ({n})' for c, n in unseen.items())}")
    if n_missing:
        info(f"# {n_missing} missing cell(s) summed out exactly (in {int(missing.any(axis=1).sum())} rows)")
    if str(target) in map(str, frame.columns):
        truth = frame[next(c for c in frame.columns if str(c) == str(target))]
        known = truth.notna().to_numpy()
        hits = [state_key(_plain(t)) == state_key(p) for t, p, k in zip(truth.tolist(), pred, known) if k]
        if hits:
            info(f"# accuracy on the {len(hits)} row(s) with a class: {np.mean(hits):.4f}")
    if not to_stdout:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    result.to_csv(sys.stdout if to_stdout else args.output)
    if not to_stdout:
        info(f"# predictions written to {args.output}")
    return 0


# ---------------------------------------------------------------------------------------------- cluster
def _cluster(args) -> int:
    from pgmpy_ext.cli._evaluate import _discretize_how, _prepare, columns_line

    to_stdout = args.output is None
    info = (lambda s: print(s, file=sys.stderr)) if to_stdout else print
    try:
        if args.model_output is not None:
            _network_format(Path(args.model_output), "--model-output")
        X, y, source = _data_frame(args, need_target=False)
        dummy = y is None
        X, y, continuous = _prepare(X, pd.Series(np.zeros(X.shape[0], dtype=np.int64), index=X.index) if dummy
                                    else y, args.dropna)
        Xd, cuts = _fit_discretiser(args.discretize, continuous, args.bins, X, None, supervised_ok=False)
    except _UsageError as err:
        print(f"pgmpy-ext cluster: error: {err}", file=sys.stderr)
        return 2
    from pgmpy_ext.clustering import CEMClustering, EMAClustering, LatentClassEM

    common = {"n_clusters": args.n_clusters, "n_init": args.n_init, "random_state": args.random_state,
              "n_jobs": args.n_jobs, "show_progress": not args.no_progress}
    if args.method == "cem":
        alpha = CEMClustering().alpha if args.alpha is None else args.alpha
        cem = CEMClustering(model=args.model, alpha=alpha, **common)
        what = f"CEM-{args.model.upper()}"
    else:
        alpha = 1.0 if args.alpha is None else args.alpha
        cem = (LatentClassEM if args.method == "em" else EMAClustering)(alpha=alpha, **common)
        what = "latent-class EM" if args.method == "em" else "EMA (model averaging over selective naive Bayes)"
    try:
        check_learner_options(cem, type(cem).__name__)
    except _UsageError as err:
        print(f"pgmpy-ext cluster: error: {err}", file=sys.stderr)
        return 2
    info(f"# {source}: {X.shape[0]} rows, {X.shape[1]} features; {what}, {args.n_clusters} "
         f"clusters, {args.n_init} restart(s), alpha {alpha}, seed {args.random_state}")
    info(columns_line(X, continuous, _discretize_how(args.discretize, args.bins, ", on all the rows")))
    try:
        cem.fit(Xd)
    except (ValueError, TypeError) as err:
        hint = ""
        if "missing values" in str(err) and args.method == "cem":
            hint = (" On the command line: --dropna drops the incomplete rows, or --method em / ema fit on them "
                    "(missing cells summed out exactly).")
        print(f"pgmpy-ext cluster: error: {one_line(err)}{hint}", file=sys.stderr)
        return 2
    proba = cem.predict_proba(Xd)
    result = pd.DataFrame({"cluster": cem.labels_}, index=X.index)
    for k in range(proba.shape[1]):
        result[f"P({k})"] = proba[:, k]
    result.index.name = "row"
    sizes = np.bincount(cem.labels_, minlength=args.n_clusters)
    if args.method == "cem":
        info(f"# classification log-likelihood {cem.cml_:.4f}; cluster sizes {sizes.tolist()}")
    else:
        info(f"# log-likelihood {cem.log_likelihood_:.4f} (BIC {cem.bic(Xd):.2f}); cluster sizes {sizes.tolist()}")
        if args.method == "ema":
            arcs = ", ".join(f"{c}: {w:.3f}" for c, w in zip(Xd.columns, cem.arc_posterior_))
            info(f"# posterior of each arc cluster -> feature: {arcs}")
    if not dummy:
        from pgmpy_ext.evaluation import clustering_accuracy

        info(f"# agreement with {y.name!r} (not used to cluster): by vote {clustering_accuracy(y, cem.labels_):.4f}, "
             f"one-to-one {clustering_accuracy(y, cem.labels_, mapping='one-to-one'):.4f}")
    if not to_stdout:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    result.to_csv(sys.stdout if to_stdout else args.output)
    if not to_stdout:
        info(f"# labels written to {args.output}")
    if args.model_output is not None:
        _write_network(cem.to_network(), Path(args.model_output))
        info(f"# network with the latent cluster node {cem.cluster_node_!r} written to {args.model_output}")
    return 0


def _reproduce(args) -> int:
    import inspect

    from pgmpy_ext.experiments import REPRODUCTIONS

    if args.list or args.name is None:
        for name, rep in REPRODUCTIONS.items():
            print(f"{name}: {rep.title}")
        return 0
    if args.name not in REPRODUCTIONS:
        print(f"unknown reproduction {args.name!r}; known: {', '.join(REPRODUCTIONS)}", file=sys.stderr)
        return 2
    run = REPRODUCTIONS[args.name].run
    kw = {"quick": args.quick, "n_jobs": args.n_jobs}
    if getattr(args, "full", False):
        if "full" not in inspect.signature(run).parameters:
            print(f"reproduction {args.name!r} has no --full grid (it always runs all of it)", file=sys.stderr)
            return 2
        kw["full"] = True
    for opt, value in (("cache_dir", args.cache_dir), ("partial", args.partial), ("nbm", args.nbm),
                       ("som_epochs", args.som_epochs), ("som_runs", args.som_runs)):
        if value:
            if opt not in inspect.signature(run).parameters:
                print(f"reproduction {args.name!r} has no --{opt.replace('_', '-')} option", file=sys.stderr)
                return 2
            kw[opt] = value
    if args.partial and not args.cache_dir:
        print("--partial reports the folds saved in --cache-dir: give --cache-dir too", file=sys.stderr)
        return 2
    output = args.output  # --output (a report file) overrides --output-dir
    if output is None:
        if "output_dir" in inspect.signature(run).parameters:
            kw["output_dir"] = args.output_dir
        else:  # a reproduction without output_dir: name its report inside --output-dir
            output = Path(args.output_dir) / f"{args.name}.md"
    path = run(output, **kw)
    if path is not None:
        print(f"report written to {path}")
    return 0


def _add_source_arguments(p: argparse.ArgumentParser, *, target_help: str) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--data", type=Path, help="CSV or TSV file (.tsv/.tab, optionally .gz, are read tab-separated), "
                                                "one column per variable, with a header row")
    src.add_argument("--dataset", help="name of a data set known to pgmpy_ext.datasets.load_dataset (its class "
                                       "column is 'target')")
    p.add_argument("--target", help=target_help)
    add_reading_arguments(p)


def _add_data_rules(p: argparse.ArgumentParser, *, supervised: bool) -> None:
    from pgmpy_ext.cli._evaluate import DISCRETIZERS

    kinds = list(DISCRETIZERS) if supervised else [k for k in DISCRETIZERS if k != "mdlp"]
    p.add_argument("--discretize", default="equal-frequency", choices=kinds,
                   help="how the columns the discretisers select by default (real-valued ones) are cut, on all the "
                        "rows (default equal-frequency); 'none' refuses them. Every other column is categorical, "
                        "with every value in the file as a state")
    p.add_argument("--bins", type=int_at_least(2), default=5,
                   help="bins per discretised column (default 5; not used by mdlp)")
    p.add_argument("--dropna", action="store_true",
                   help="drop rows with a missing value (default: keep them; the learners count available cases "
                        "and sum missing features out)")
    p.add_argument("--n-jobs", type=n_jobs_value, default=1,
                   help="threads/processes where the learner supports them (-1: all cores)")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def _add_fit_arguments(p: argparse.ArgumentParser) -> None:
    _add_source_arguments(p, target_help="class column of --data (required with --data)")
    p.add_argument("--learner", default="tan",
                   help="short name of a pgmpy_ext.classifiers class, as for evaluate --learners (default tan; e.g. "
                        "nb, tan, fan, kdb, ban, sbn, abn, cl-multinet, ctan, structural-tm, and nb-tm, tan-tm ... "
                        "for TM parameters)")
    p.add_argument("--alpha", type=float, default=1.0,
                   help="Dirichlet pseudo-count per CPT cell (default 1.0; 0 = maximum likelihood)")
    add_tm_arguments(p)
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="any other option of the learner, e.g. --param k=2 for kdb (repeatable)")
    p.add_argument("--seed", "--random-state", dest="seed", type=int_at_least(0), default=0,
                   help="random_state of the learner (default 0)")
    _add_data_rules(p, supervised=True)
    p.add_argument("--output", required=True,
                   help="network file: .bif (BIF) or .xml (XMLBIF); the sidecar <name>.json is written beside it")
    p.add_argument("--plot", type=Path, default=None, metavar="FILE.png",
                   help="also save a picture of the learned structure (pgmpy_ext.evaluation.plot_network; class node "
                        "on top, augmenting arcs labelled by their CMI when the learner keeps it; one panel per "
                        "class for cl-multinet); the type follows the extension (.png, .svg, .pdf)")
    p.set_defaults(func=_fit)


def _add_predict_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True,
                   help="the sidecar .json written by fit, or its .bif/.xml (the sidecar beside it is read); any "
                        "other BIF/XMLBIF network works with --target")
    p.add_argument("--data", type=Path, required=True, help="CSV or TSV file with the feature columns (others, "
                                                             "the class included, are ignored)")
    add_reading_arguments(p)
    p.add_argument("--target", help="class node, only for a network without a sidecar")
    p.add_argument("--handle-unknown", default="ignore", choices=["ignore", "error"],
                   help="a value not seen during fit: 'ignore' (default) sums it out as a missing value, exactly; "
                        "'error' stops, naming the column, value and row")
    p.add_argument("--missing", default="available_case", choices=["available_case", "error", "skip"],
                   help="missing cells (see --na-values): 'available_case' (default) sums them out exactly "
                        "(P(class | observed cells)), as the library's missing='available_case'; 'error' stops; "
                        "'skip' is an old name of 'available_case'")
    p.add_argument("--output", type=Path, default=None, help="CSV file (default: standard output)")
    p.set_defaults(func=_predict)


def _add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    _add_source_arguments(p, target_help="a class column to leave out of the clustering; the agreement of the "
                                         "clusters with it is reported")
    p.add_argument("--n-clusters", type=int, required=True, help="number of clusters K")
    p.add_argument("--method", default="cem", choices=["cem", "em", "ema"],
                   help="cem: classification EM with a network per cluster (default); em: latent-class EM "
                        "(LatentClassEM); ema: expectation model averaging (EMAClustering, arc posteriors)")
    p.add_argument("--model", default="cl", choices=["cl", "tan", "sbn"],
                   help="CEM only: network per cluster: Chow-Liu multinet (default), TAN or SBN with a latent "
                        "cluster node")
    p.add_argument("--n-init", type=int, default=10, help="restarts (default 10)")
    p.add_argument("--alpha", type=float, default=None,
                   help="Dirichlet pseudo-count (default: the estimator's, 0.5 for cem and 1.0 for em and ema)")
    p.add_argument("--random-state", "--seed", dest="random_state", type=int_at_least(0), default=0,
                   help="seed (default 0)")
    _add_data_rules(p, supervised=False)
    p.add_argument("--output", type=Path, default=None,
                   help="labels CSV: cluster and P(k) per row (default: standard output)")
    p.add_argument("--model-output", default=None,
                   help="also write the network with its latent cluster node (.bif or .xml; CL: the exactly "
                        "equivalent single network)")
    p.set_defaults(func=_cluster)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``pgmpy-ext fit: error: argument --bins: ... (pgmpy-ext fit --help lists the
    options)`` instead of the usage block followed by the error (subcommands' parsers are of this class too)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help lists the options)\n")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="pgmpy-ext", description="Fast Bayesian-network learners for pgmpy.")
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="a short tour of every family on built-in data (offline, about a minute)")
    d.add_argument("--output-dir", default="demo_output",
                   help="where the BIF/XMLBIF files and the pictures go (default: demo_output)")
    d.add_argument("--n-train", type=int_at_least(50), default=5000,
                   help="training rows sampled from asia (default 5000, at least 50)")
    d.add_argument("--n-test", type=int_at_least(1), default=2000, help="test rows (default 2000)")
    d.add_argument("--seed", type=int_at_least(0), default=42)
    d.add_argument("--no-progress", action="store_true", help="hide progress bars")
    d.add_argument("--sections", nargs="+", choices=DEMO_SECTIONS, metavar="SECTION",
                   help=f"run only these parts (default: all of {', '.join(DEMO_SECTIONS)})")
    d.add_argument("--no-plots", action="store_true", help="draw no pictures")
    d.set_defaults(func=_demo)
    g = sub.add_parser("gallery", help="draw every plot of pgmpy_ext.evaluation on built-in data (PNG + Markdown)")
    g.add_argument("--output-dir", default="docs/gallery", help="where the PNG files go (default: docs/gallery)")
    g.add_argument("--markdown", default="docs/gallery.md", help="the Markdown page (default: docs/gallery.md)")
    g.add_argument("names", nargs="*", help="figures to draw (default: all)")
    g.set_defaults(func=_gallery)
    from pgmpy_ext.cli._evaluate import add_arguments as _evaluate_arguments

    e = sub.add_parser("evaluate", help="cross-validate classifiers on a CSV/TSV file or a shared data set")
    _evaluate_arguments(e)
    e.set_defaults(func=_evaluate)
    _add_fit_arguments(sub.add_parser("fit", help="learn one classifier on a file and write its network (BIF/XMLBIF) "
                                                   "plus a JSON sidecar with what predict needs"))
    _add_predict_arguments(sub.add_parser("predict", help="predictions and class probabilities (CSV) of a model "
                                                          "written by fit"))
    _add_cluster_arguments(sub.add_parser("cluster", help="CEM clustering of a file: labels and posteriors (CSV)"))
    r = sub.add_parser("reproduce", help="run a reproduction of a published table and write its Markdown report")
    r.add_argument("name", nargs="?", help="reproduction name (see --list), e.g. seed000-table4.2")
    r.add_argument("--list", action="store_true", help="list the registered reproductions")
    r.add_argument("--output-dir", type=Path, default=Path("."),
                   help="folder of the report <name>.md (default: the current directory); the committed reports "
                        "live in the repository's docs/reproductions/")
    r.add_argument("--output", default=None, help="report path (overrides --output-dir)")
    r.add_argument("--quick", action="store_true", help="smoke run with tiny settings (not the reproduction)")
    r.add_argument("--full", action="store_true", help="every cell of a reproduction whose default runs a subset "
                                                       "(e.g. seed001-tables7.1-7.2)")
    r.add_argument("--n-jobs", type=int, default=None, help="parallel jobs where the experiment supports them")
    r.add_argument("--cache-dir", type=Path, default=None,
                   help="per-fold result cache of reproductions that have one (e.g. seed004-bench): finished folds "
                        "are saved there and reused only when they were run with the same settings")
    r.add_argument("--partial", action="store_true",
                   help="with --cache-dir: run nothing, write the report from the saved folds (it says which are "
                        "missing)")
    r.add_argument("--nbm", choices=("thesis", "default", "both"), default=None,
                   help="seed000-nbm-maps: NBM under the thesis's rule (the reproduction, the default), "
                        "NaiveBayesMap()'s defaults, or both side by side")
    r.add_argument("--som-epochs", type=int, default=None, help="seed000-nbm-maps: MiniSom epochs (default 100)")
    r.add_argument("--som-runs", type=int, default=None, help="seed000-nbm-maps: MiniSom runs (default 3)")
    r.set_defaults(func=_reproduce)
    v = sub.add_parser("version", help="print versions")
    v.set_defaults(func=_version)
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run the command line; a problem with the input is one line on standard error and exit status 2 (set
    ``PGMPY_EXT_TRACEBACK=1`` to see the traceback of a ValueError, TypeError or OSError)."""
    import os

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # e.g. `pgmpy-ext predict ... | head`: stop quietly, as other command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except _UsageError as err:
        print(f"pgmpy-ext {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError, MemoryError) as err:  # the library's messages name what to fix
        if os.environ.get("PGMPY_EXT_TRACEBACK"):
            raise
        print(f"pgmpy-ext {args.command}: error: {one_line(err)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
