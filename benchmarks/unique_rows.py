"""unique_rows on alarm-100k (37 columns, about 70 key bits): the old ``np.unique(axis=0)`` fallback vs the
multi-word mixed-radix keys + lexsort now in ``pgmpy_ext.stats.unique_rows`` (design note scale-out.md §5.6: 0.72 s
-> goal <= 60 ms). Both are checked equal (rows, counts, inverse) in the same run; machine load is printed.

Usage: python benchmarks/unique_rows.py [--repeat 5] [--rows 100000]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from _common import alarm_100k, best_time, codes_of, fmt_ratio, machine


def old_unique_rows(codes, weights=None):
    """The previous wide-row fallback, verbatim: np.unique(axis=0) then bincount."""
    ucodes, inverse = np.unique(codes, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.intp)
    w = np.ones(codes.shape[0]) if weights is None else weights
    return np.ascontiguousarray(ucodes), np.bincount(inverse, weights=w, minlength=ucodes.shape[0]), inverse


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rows", type=int, default=100_000)
    args = ap.parse_args(argv)
    from pgmpy_ext.stats import key_words, unique_rows

    df = alarm_100k(args.rows)
    codes = codes_of(df)
    cards = np.array([len(df[c].cat.categories) for c in df.columns], dtype=np.intp)
    print(f"machine: {machine()}; load average before: {os.getloadavg()}")
    print(f"alarm-{args.rows}: {codes.shape[1]} columns, {np.log2(cards + 1.0).sum():.1f} key bits, "
          f"{len(key_words(cards)) - 1} key words")
    t_old, old = best_time(lambda: old_unique_rows(codes), args.repeat)
    t_new, new = best_time(lambda: unique_rows(codes, cards), args.repeat)
    same = (np.array_equal(old[0], new.codes) and np.array_equal(old[1], new.counts)
            and np.array_equal(old[2], new.inverse))
    print(f"distinct rows: {new.codes.shape[0]}; identical to np.unique(axis=0): {same}")
    print(f"np.unique(axis=0) fallback: {t_old * 1e3:8.1f} ms (best of {args.repeat})")
    print(f"multi-word keys + lexsort:  {t_new * 1e3:8.1f} ms (best of {args.repeat})  "
          f"speed-up {fmt_ratio(t_old, t_new)}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
