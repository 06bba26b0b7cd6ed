"""The ``pgmpy-ext`` command line.

``pgmpy-ext demo``     learn a TAN on data sampled from pgmpy's bundled asia network, report, export, query.
``pgmpy-ext evaluate`` cross-validate classifiers on a CSV/TSV file or a shared data set (identical folds, tests).
``pgmpy-ext reproduce`` run a registered reproduction of a published table and write its report (``--list``).
``pgmpy-ext version``  print the versions of pgmpy-ext and its main dependencies.
"""

from __future__ import annotations

import argparse
import sys


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
    from pgmpy_ext._demo import run_demo

    run_demo(output_dir=args.output_dir, n_train=args.n_train, n_test=args.n_test, seed=args.seed,
             show_progress=not args.no_progress)
    return 0


def _evaluate(args) -> int:
    from pgmpy_ext.evaluation._cli import run

    return run(args)


def _reproduce(args) -> int:
    from pgmpy_ext.experiments import REPRODUCTIONS

    if args.list or args.name is None:
        for name, rep in REPRODUCTIONS.items():
            print(f"{name}: {rep.title}")
        return 0
    if args.name not in REPRODUCTIONS:
        print(f"unknown reproduction {args.name!r}; known: {', '.join(REPRODUCTIONS)}", file=sys.stderr)
        return 2
    REPRODUCTIONS[args.name].run(args.output, quick=args.quick, n_jobs=args.n_jobs)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="pgmpy-ext", description="Fast Bayesian-network learners for pgmpy.")
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="learn, evaluate, export and query a TAN on built-in data (offline)")
    d.add_argument("--output-dir", default="demo_output", help="where the BIF/XMLBIF files go (default: demo_output)")
    d.add_argument("--n-train", type=int, default=5000, help="training rows sampled from asia (default 5000)")
    d.add_argument("--n-test", type=int, default=2000, help="test rows (default 2000)")
    d.add_argument("--seed", type=int, default=42)
    d.add_argument("--no-progress", action="store_true", help="hide progress bars")
    d.set_defaults(func=_demo)
    from pgmpy_ext.evaluation._cli import add_arguments as _evaluate_arguments

    e = sub.add_parser("evaluate", help="cross-validate classifiers on a CSV/TSV file or a shared data set")
    _evaluate_arguments(e)
    e.set_defaults(func=_evaluate)
    r = sub.add_parser("reproduce", help="run a reproduction of a published table and write its Markdown report")
    r.add_argument("name", nargs="?", help="reproduction name (see --list), e.g. seed000-table4.2")
    r.add_argument("--list", action="store_true", help="list the registered reproductions")
    r.add_argument("--output", default=None, help="report path (default: docs/reproductions/<name>.md)")
    r.add_argument("--quick", action="store_true", help="smoke run with tiny settings (not the reproduction)")
    r.add_argument("--n-jobs", type=int, default=None, help="parallel jobs where the experiment supports them")
    r.set_defaults(func=_reproduce)
    v = sub.add_parser("version", help="print versions")
    v.set_defaults(func=_version)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
