"""The bad-input probe (issue 24, item 7): every case of ``tests/bad_input_cases.py`` on every public estimator, with
the counts by outcome (ok / clear error / unclear error / silent wrong result) per estimator and per family.

The same cases run as tests in ``tests/test_bad_input.py`` (each case must end ``ok`` or ``clear``); this script
prints the whole table at once, lists every unclear error and silent wrong result with its detail, and with
``--messages`` prints every clear error's message too (to read them: a message must name the parameter, column,
value or row, and the fix).

Usage: python benchmarks/bad_input_probe.py [--only NAME[,NAME]] [--messages] [--markdown FILE]
Exit status 1 when any case is unclear or silent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bad_input_cases import OUTCOMES, all_specs, cases_for, run_case  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="comma-separated estimator class names")
    ap.add_argument("--messages", action="store_true", help="print every clear error's message")
    ap.add_argument("--markdown", type=Path, default=None, help="also write the table as Markdown here")
    args = ap.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    t0 = time.perf_counter()
    by_est: dict[str, Counter] = {}
    family: dict[str, str] = {}
    bad, clear = [], []
    for spec in all_specs():
        if only and spec.name not in only:
            continue
        counts = Counter()
        family[spec.name] = spec.family
        for case in cases_for(spec):
            res = run_case(case)
            counts[res.outcome] += 1
            if res.outcome in ("unclear", "silent"):
                bad.append((case.id, res.outcome, res.detail))
            elif res.outcome == "clear":
                clear.append((case.id, res.detail))
        by_est[spec.name] = counts
        print(f"{spec.name:34s} " + "  ".join(f"{o} {counts[o]:3d}" for o in OUTCOMES), flush=True)
    elapsed = time.perf_counter() - t0
    fam: dict[str, Counter] = defaultdict(Counter)
    for name, c in by_est.items():
        fam[family[name]].update(c)
    total = Counter()
    for c in by_est.values():
        total.update(c)
    lines = ["| family | estimators | cases | ok | clear error | unclear error | silent wrong |",
             "|---|---|---|---|---|---|---|"]
    for f in sorted(fam):
        c = fam[f]
        n_est = sum(1 for v in family.values() if v == f)
        lines.append(f"| {f} | {n_est} | {sum(c.values())} | {c['ok']} | {c['clear']} | {c['unclear']} | "
                     f"{c['silent']} |")
    lines.append(f"| **all** | {len(by_est)} | {sum(total.values())} | {total['ok']} | {total['clear']} | "
                 f"{total['unclear']} | {total['silent']} |")
    print()
    print("\n".join(lines))
    print(f"\n{sum(total.values())} cases in {elapsed:.1f} s (load average {os.getloadavg()[0]:.2f})")
    if bad:
        print("\nunclear errors and silent wrong results:")
        for cid, outcome, detail in bad:
            print(f"  [{outcome}] {cid}: {detail.splitlines()[0] if detail else ''}")
    if args.messages:
        print("\nclear errors:")
        for cid, detail in clear:
            print(f"  {cid}: {detail}")
    if args.markdown is not None:
        args.markdown.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
