"""unique_rows on alarm-100k (37 columns, about 70 key bits): the old ``np.unique(axis=0)`` fallback, the
multi-word mixed-radix keys + ``np.lexsort`` of every row (the previous ``unique_rows``), and the hash group-by of
the key words that sorts only the distinct rows (``pgmpy_ext.stats.unique_rows`` now); design note scale-out.md
§5.6: 0.72 s -> goal <= 60 ms. All are checked equal (rows, counts, inverse) in the same run; machine load is
printed. Also times the k-way merge of ten parts' distinct rows (``merge_unique_rows``) against ``unique_rows`` of
their concatenation, the two ways to merge partitions' distinct rows.

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


def lexsort_unique_rows(codes, cards, weights=None):
    """The previous unique_rows, verbatim: multi-word keys of every row, np.lexsort of all rows, then bincount."""
    from pgmpy_ext._core import _counting
    from pgmpy_ext.stats import key_words

    n = codes.shape[0]
    word_ptr = key_words(cards)
    words = np.empty((n, word_ptr.shape[0] - 1), dtype=np.int64)
    _counting.row_keys_multi(codes, cards, word_ptr, words)
    order = np.lexsort(words.T[::-1])
    sorted_words = words[order]
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    np.any(sorted_words[1:] != sorted_words[:-1], axis=1, out=new_group[1:])
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.cumsum(new_group) - 1
    first = order[new_group]
    w = np.ones(n) if weights is None else weights
    return codes[first], np.bincount(inverse, weights=w, minlength=first.shape[0]), inverse


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rows", type=int, default=100_000)
    args = ap.parse_args(argv)
    from pgmpy_ext.stats import key_words, merge_unique_rows, unique_rows

    df = alarm_100k(args.rows)
    codes = codes_of(df)
    cards = np.array([len(df[c].cat.categories) for c in df.columns], dtype=np.intp)
    print(f"machine: {machine()}; load average before: {os.getloadavg()}")
    print(f"alarm-{args.rows}: {codes.shape[1]} columns, {np.log2(cards + 1.0).sum():.1f} key bits, "
          f"{len(key_words(cards)) - 1} key words")
    t_old, old = best_time(lambda: old_unique_rows(codes), args.repeat)
    t_lex, lex = best_time(lambda: lexsort_unique_rows(codes, cards), args.repeat)
    t_new, new = best_time(lambda: unique_rows(codes, cards), args.repeat)
    t_lean, lean = best_time(lambda: unique_rows(codes, cards, return_inverse=False), args.repeat)
    same = all(np.array_equal(ref[0], new.codes) and np.array_equal(ref[1], new.counts)
               and np.array_equal(ref[2], new.inverse) for ref in (old, lex))
    same = same and np.array_equal(lean.codes, new.codes) and np.array_equal(lean.counts, new.counts)
    print(f"distinct rows: {new.codes.shape[0]}; identical to np.unique(axis=0) and to the lexsort path: {same}")
    print(f"np.unique(axis=0) fallback:       {t_old * 1e3:8.1f} ms (best of {args.repeat})")
    print(f"multi-word keys + lexsort (prev): {t_lex * 1e3:8.1f} ms  x{t_old / t_lex:.1f} vs np.unique")
    print(f"hash group-by (unique_rows):      {t_new * 1e3:8.1f} ms  x{t_old / t_new:.1f} vs np.unique, "
          f"{fmt_ratio(t_lex, t_new)} vs lexsort")
    print(f"  without the inverse:            {t_lean * 1e3:8.1f} ms")
    parts = [unique_rows(c, cards, return_inverse=False) for c in np.array_split(codes, 10)]
    parts = [(p.codes, p.counts) for p in parts]
    t_merge, merged = best_time(lambda: merge_unique_rows(parts, cards), args.repeat)
    t_cat, cat = best_time(lambda: unique_rows(np.concatenate([p[0] for p in parts]), cards,
                                               np.concatenate([p[1] for p in parts]), return_inverse=False),
                           args.repeat)
    same_merge = np.array_equal(merged[0], cat.codes) and np.array_equal(merged[1], cat.counts)
    same_merge = same_merge and np.array_equal(merged[0], new.codes) and np.array_equal(merged[1], new.counts)
    print(f"merge of 10 parts' distinct rows ({sum(p[0].shape[0] for p in parts)} rows): k-way merge "
          f"{t_merge * 1e3:.1f} ms, unique_rows of the concatenation {t_cat * 1e3:.1f} ms; identical: {same_merge}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
