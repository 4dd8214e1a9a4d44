"""The benchmark scripts' own logic (their timings live in docs/performance.md)."""
import importlib.util
import os

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "benchmarks",
                                                                     name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kernel_ab_renumbers_columns_by_document_frequency():
    ab = _load("bench_kernel_ab")
    rng = np.random.default_rng(0)
    X = sp.random(40, 15, density=0.3, format="csr", random_state=rng)
    X0 = X.copy()
    Xp = ab.by_frequency(X)
    assert (X != X0).nnz == 0                          # X itself untouched
    df = np.diff(Xp.tocsc().indptr)
    assert np.all(np.diff(df) <= 0)                    # most frequent column first
    assert Xp.has_sorted_indices
    # the same matrix, columns permuted: every row keeps its values
    order = np.argsort(-np.diff(X.tocsc().indptr), kind="stable")
    assert (abs(X[:, order] - Xp)).max() == 0


def test_kernel_ab_rejects_an_unknown_regularizer(capsys):
    ab = _load("bench_kernel_ab")
    with pytest.raises(SystemExit):
        ab.main(["--regularizers", "square,entropie"])
    assert "unknown regularizer(s) entropie" in capsys.readouterr().err


def test_parallel_quartiles_and_greedy_makespan():
    par = _load("bench_parallel")
    assert par.quartiles([5.0, 1.0, 4.0, 2.0, 3.0]) == (2.0, 3.0, 4.0)
    assert par.quartiles([1.7]) == (1.7, 1.7, 1.7)
    # the pool hands problems out in order: 3 | 3, then 2 to each, the last 2 to the first
    assert par.greedy_makespan([3.0, 3.0, 2.0, 2.0, 2.0], 2) == 7.0
    assert par.greedy_makespan([1.0] * 4, 1) == 4.0


def test_json_to_stdout_is_the_document_alone(capsys):
    # `--json -` printed the JSON after the tables: not a JSON stream
    import argparse
    import json
    import sys

    common = _load("_common")
    ap = common.add_common_args(argparse.ArgumentParser())
    real = sys.stdout
    try:
        args = ap.parse_args(["--json", "-"])
        print("a table line")
        common.emit_json(args.json, {"ratio": 0.5})
    finally:
        sys.stdout = real
        common._JSON_STDOUT.clear()
    out, err = capsys.readouterr()
    assert json.loads(out) == {"ratio": 0.5} and "a table line" in err


def test_a_missing_corpus_is_one_line():
    common = _load("_common")

    def load():
        raise OSError("Reuters-21578 was not found in /nowhere\nand more lines")

    with pytest.raises(SystemExit, match="Reuters-21578 is needed: .*/nowhere .*TEXTWIN_DATA_HOME"):
        common.corpus_or_exit(load)
