"""What the Dask and the Ray tests share: a multi-label problem and a command-line run."""
import json

import numpy as np
import scipy.sparse as sp


def cluster_data(n=400, d=150, labels=5, seed=0):
    """A sparse X and a 0/1 indicator Y, each column's top 30 % of a noisy linear score."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.08, format="csr", random_state=rng)
    S = X @ rng.normal(size=(d, labels)) + 0.3 * rng.normal(size=(n, labels))
    return X, (S > np.quantile(S, 0.7, axis=0)).astype(int)


def svmlight_train_argv(folder):
    """``textwin train`` on a three-class svmlight corpus written into ``folder``."""
    for name, n, seed in (("train.svm", 200, 0), ("test.svm", 80, 1)):
        rng = np.random.default_rng(seed)
        with open(folder / name, "w") as fh:
            for _ in range(n):
                idx = np.sort(rng.choice(40, size=6, replace=False)) + 1
                fh.write(f"{1 + int(idx[0] // 4) % 3} " + " ".join(f"{j}:1" for j in idx)
                         + "\n")
    return ["train", "--corpus", str(folder / "train.svm"), "--test-corpus",
            str(folder / "test.svm"), "-c", "all", "--json", "-q"]


def train_result(capsys, argv):
    """The JSON that ``textwin`` prints for ``argv``, without its timing."""
    from textwin import cli

    assert cli.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    result.pop("seconds")
    return result
