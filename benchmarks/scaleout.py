"""Scale-out benchmark (design note scale-out.md §6; not run in CI): one counting pass and one ``compress()`` over
alarm rows stored in parquet files, in three ways on the same files:

1. a single process streaming the files (read -> encode with declared states -> kernel), the no-engine baseline;
2. ``pgmpy_ext.dask`` on the threads scheduler with 2 threads;
3. ``pgmpy_ext.dask`` on a ``distributed.LocalCluster`` of 2 processes x 1 thread (``--memory-limit`` each).

Data: rows sampled from pgmpy's bundled alarm network by vectorised forward sampling (cumulative CPT columns
indexed by the parent configuration, one uniform per cell, ``SeedSequence(seed).spawn`` per file), written once
to ``benchmarks/.cache/scaleout_<rows>_<seed>/part-XXX.parquet`` with categorical columns.

Printed per mode: wall seconds, rows/s, CPU-seconds (driver + scheduler + workers, ``os.times`` / per-process
``/proc`` counters), per-worker peak memory (``VmHWM``), and whether the family tables and the compressed data
are identical to the single-process result. The machine load (1-minute load average and the run queue) is printed
before and after each mode; a mode that ran with a load above 1.2 is marked INVALID (the design note found CPU per
unit of work 1.4-2.4x worse under load). The cluster's per-task overhead is measured on 1,000 trivial tasks.

Usage::

    python benchmarks/scaleout.py --rows 2000000 --rows-per-file 250000      # smoke run (minutes)
    python benchmarks/scaleout.py --rows 50000000 --rows-per-file 1000000    # the full run, on a quiet machine
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import CACHE, load_bundled_network, machine

LOAD_LIMIT = 1.2


def load() -> tuple[float, str]:
    with open("/proc/loadavg") as fh:
        parts = fh.read().split()
    return float(parts[0]), parts[3]  # 1-minute load, running/total tasks


def cpu_self() -> float:
    t = os.times()
    return t.user + t.system


def vm_hwm_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def network_tables(model):
    """Topological order, states, and per node (parents, cumulative CPT (card, n_configs), parent radix)."""
    import networkx as nx

    order = list(nx.topological_sort(model))
    states = {n: list(model.get_cpds(n).state_names[n]) for n in order}
    tables = {}
    for n in order:
        cpd = model.get_cpds(n)
        evidence = list(cpd.variables[1:])
        values = cpd.get_values()  # (card, prod(evidence cards)), C-order over evidence
        cum = np.cumsum(values, axis=0)
        cum[-1] = 1.0 + 1e-12  # guard against rounding: the last state takes the rest
        tables[n] = (evidence, cum, [len(states[e]) for e in evidence])
    return order, states, tables


def forward_sample(order, tables, n: int, rng: np.random.Generator) -> dict:
    codes = {}
    for node in order:
        evidence, cum, ecards = tables[node]
        idx = np.zeros(n, dtype=np.int64)
        for e, c in zip(evidence, ecards):
            idx = idx * c + codes[e]
        u = rng.random(n)
        codes[node] = (u[:, None] > cum[:, idx].T[:, :-1]).sum(axis=1).astype(np.int8)
    return codes


def make_files(rows: int, rows_per_file: int, seed: int) -> tuple[list[Path], dict, list]:
    model = load_bundled_network("alarm")
    order, states, tables = network_tables(model)
    columns = sorted(order)
    folder = CACHE / f"scaleout_{rows}_{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    n_files = -(-rows // rows_per_file)
    seeds = np.random.SeedSequence(seed).spawn(n_files)
    files = []
    t0 = time.perf_counter()
    for k, ss in enumerate(seeds):
        path = folder / f"part-{k:04d}.parquet"
        files.append(path)
        if path.exists():
            continue
        n = min(rows_per_file, rows - k * rows_per_file)
        codes = forward_sample(order, tables, n, np.random.default_rng(ss))
        df = pd.DataFrame({c: pd.Categorical.from_codes(codes[c], categories=states[c]) for c in columns})
        df.to_parquet(path, index=False)
    print(f"data: {rows:,} rows in {n_files} files under {folder} ({time.perf_counter() - t0:.1f} s to write)")
    families = [(n, sorted(model.get_parents(n))) for n in columns]
    return files, {c: states[c] for c in columns}, families


def single_process(files, states, families):
    """Two streaming passes like the dask modes: the family tables, then the distinct rows."""
    from pgmpy_ext.data import encode
    from pgmpy_ext.stats import family_counts_many, unique_rows

    cols = list(states)
    t0 = time.perf_counter()
    total = None
    for f in files:
        tabs = family_counts_many(encode(pd.read_parquet(f, columns=cols), states=states), families)
        total = tabs if total is None else [a + b for a, b in zip(total, tabs)]
    t_counts = time.perf_counter() - t0
    t0 = time.perf_counter()
    parts = []
    for f in files:
        data = encode(pd.read_parquet(f, columns=cols), states=states)
        u = unique_rows(data.codes, data.cards)
        parts.append((u.codes, u.counts))
    cards = np.array([len(states[c]) for c in cols], dtype=np.intp)
    u = unique_rows(np.concatenate([p[0] for p in parts]), cards, np.concatenate([p[1] for p in parts]))
    return total, (u.codes, u.counts), t_counts, time.perf_counter() - t0


def dask_pass(files, states, families):
    import dask.dataframe as dd

    import pgmpy_ext.dask as pdask

    ddf = dd.read_parquet([str(f) for f in files], columns=list(states))
    data = pdask.encode(ddf, states=states, scan=False)
    t0 = time.perf_counter()
    tabs = pdask.family_counts_many(data, families)
    t_counts = time.perf_counter() - t0
    t0 = time.perf_counter()
    comp = pdask.compress(data)
    t_compress = time.perf_counter() - t0
    return tabs, (comp.codes, comp.weights), t_counts, t_compress


def report(name, rows, wall_counts, wall_compress, cpu, load_before, load_after, same_counts, same_comp, extra=""):
    worst = max(load_before[0], load_after[0])
    flag = "valid" if worst <= LOAD_LIMIT else f"INVALID (load {worst:.2f} > {LOAD_LIMIT})"
    print(f"{name:<22} counts {wall_counts:7.2f} s ({rows / wall_counts / 1e6:5.2f} M rows/s)  compress "
          f"{wall_compress:7.2f} s  CPU {cpu:7.2f} s  identical counts={same_counts} compress={same_comp}  "
          f"load {load_before[0]:.2f}/{load_before[1]} -> {load_after[0]:.2f}/{load_after[1]}  {flag}{extra}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--rows-per-file", type=int, default=250_000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--memory-limit", default="1.5GiB")
    ap.add_argument("--modes", default="single,threads,cluster")
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
    print(f"machine: {machine()}; load {load()}")
    files, states, families = make_files(args.rows, args.rows_per_file, args.seed)

    lb, c0 = load(), cpu_self()
    ref_counts, ref_comp, tc, tz = single_process(files, states, families)
    report("single process", args.rows, tc, tz, cpu_self() - c0, lb, load(), "(reference)", "(reference)",
           f"  peak RSS {vm_hwm_mb():.0f} MB; distinct rows {ref_comp[0].shape[0]:,}")

    def same(tabs, comp):
        return (all(np.array_equal(a, b) for a, b in zip(tabs, ref_counts)),
                np.array_equal(comp[0], ref_comp[0]) and np.array_equal(comp[1], ref_comp[1]))

    if "threads" in modes:
        import dask

        with dask.config.set(scheduler="threads", num_workers=2):
            lb, c0 = load(), cpu_self()
            tabs, comp, tc, tz = dask_pass(files, states, families)
            report("dask threads x2", args.rows, tc, tz, cpu_self() - c0, lb, load(), *same(tabs, comp))

    if "cluster" in modes:
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=args.memory_limit,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.run(lambda: None)
            idle = client.run(vm_hwm_mb)
            w0 = sum(client.run(cpu_self).values())
            s0 = client.run_on_scheduler(cpu_self)
            lb, c0 = load(), cpu_self()
            tabs, comp, tc, tz = dask_pass(files, states, families)
            cpu = cpu_self() - c0 + sum(client.run(cpu_self).values()) - w0 + client.run_on_scheduler(cpu_self) - s0
            peaks = client.run(vm_hwm_mb)
            pgmpy_loaded = client.run(lambda: "pgmpy" in __import__("sys").modules)
            report("LocalCluster 2 procs", args.rows, tc, tz, cpu, lb, load(), *same(tabs, comp),
                   f"  worker VmHWM idle {sorted(round(v) for v in idle.values())} MB, peak "
                   f"{sorted(round(v) for v in peaks.values())} MB; pgmpy on workers: {any(pgmpy_loaded.values())}")
            t0 = time.perf_counter()
            client.gather(client.map(lambda x: x, range(1000), pure=False))
            print(f"per-task overhead (1,000 trivial tasks): {(time.perf_counter() - t0):.3f} ms/task; load {load()}")


if __name__ == "__main__":
    main()
